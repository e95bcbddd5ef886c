internal import CloudantCore
public import Foundation
internal import GRDB

/// Document expiry (time to live): a document whose expiry field holds a time that has passed is gone for
/// every reader at once and purged, as CouchDB's `_purge` leaves it (no revision, no tombstone, no change
/// in the feed; `purge_seq` counts it).
extension DocumentStore {
    /// Makes documents expire at the time their top-level member `field` holds: an ISO 8601 timestamp
    /// (`"2026-12-01T00:00:00Z"`) or a number of seconds since 1970. Nil stops expiry. The setting is kept in
    /// the file, so every process that opens it (the CLI, `cloudant serve`) enforces it.
    ///
    /// ```swift
    /// try await store.setExpiryField("expiresAt")
    /// try await store.put(["_id": "otp", "code": "493021", "expiresAt": "2026-11-26T16:00:00Z"])
    /// // from 16:00 UTC on, store.document(id: "otp") throws notFound, and the document is purged
    /// ```
    ///
    /// The field is an ordinary member: it replicates with the document, and a target that expires
    /// documents by the same field enforces it too. Setting the field reads every live document once.
    /// Expiry is enforced by reads through this store (each read first purges what is due, by the store's
    /// clock, ``StoreOptions/now``) and by a background purge that wakes at the next expiry time; a
    /// read-only store enforces nothing.
    /// - Throws: `CloudantError` `.invalidInput` for a field that is empty, starts with `_` (CouchDB's
    ///   reserved members) or has characters other than letters, digits, `_` and `-`; `.storeUnwritable` when
    ///   the store cannot be written.
    public func setExpiryField(_ field: String?) async throws {
        if let field {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-"))
            guard !field.isEmpty, !field.hasPrefix("_"), field.unicodeScalars.allSatisfy(allowed.contains) else {
                throw CloudantError(
                    .invalidInput,
                    "An expiry field is a top-level member name of letters, digits, '_' and '-' that does not start with '_'.",
                    context: .init(field: field))
            }
        }
        try await write(.storeUnwritable) { db in
            if let field {
                try StoreInfo.set(StoreSchema.StoreInfo.expiryField, to: field, in: db)
            } else {
                try db.execute(
                    sql: "DELETE FROM \(StoreSchema.StoreInfo.table) WHERE \(StoreSchema.StoreInfo.key) = ?",
                    arguments: [StoreSchema.StoreInfo.expiryField])
            }
            try ExpiryRecord.rebuild(field: field, in: db)
        }
    }

    /// The member documents expire by, or nil when they do not expire.
    public func expiryField() async throws -> String? {
        try await read(.storeUnreadable) { db in try StoreInfo.string(StoreSchema.StoreInfo.expiryField, in: db) }
    }

    /// Writes `date` into document `id`'s expiry field as a new revision (nil removes it), so the document
    /// expires then; the expiry replicates with the document.
    ///
    /// ```swift
    /// try await store.setExpiry(Date().addingTimeInterval(3600), forDocument: "session-42")
    /// ```
    /// - Throws: `CloudantError` `.invalidInput` when the store has no expiry field; what
    ///   ``document(id:options:)`` and ``put(_:)-(JSONObject)`` throw (`.notFound`, `.conflict` on a concurrent edit).
    @discardableResult
    public func setExpiry(_ date: Date?, forDocument id: String) async throws -> WriteResult {
        guard let field = try await expiryField() else {
            throw CloudantError(
                .invalidInput, "Documents in this store do not expire; call setExpiryField(_:) first.",
                context: .init(documentID: id))
        }
        var document = try await document(id: id)
        document[field] = date.flatMap(ISO8601Timestamp.string(from:)).map(JSONValue.string)
        return try await put(document)
    }

    /// Purges every document expired by now (the store's clock) and returns their ids. Reads do this for
    /// themselves; call it to reclaim the space at a time of your choosing.
    /// - Throws: `CloudantError` `.storeUnwritable` when the store cannot be written.
    @discardableResult
    public func purgeExpired() async throws -> [String] {
        try await writerGate.run { try self.purgeExpiredNow() }
    }

    /// Purges what is due, when something is: the check every read makes first (one clock read and one
    /// comparison when nothing is due).
    func purgeExpiredIfDue() throws {
        guard !options.readOnly, let next = expiry.nextExpiry, next <= options.now().timeIntervalSince1970 else { return }
        try purgeExpiredNow()
    }

    /// Purges every expired document in transactions of ``purgeBatchSize``, on the calling thread.
    @discardableResult
    private func purgeExpiredNow() throws -> [String] {
        try lifecycle.requireOpen(database: name)
        let clock = options.now
        let now = clock().timeIntervalSince1970
        let makeID = options.makeDocumentID
        let cache = indexCache
        var purged: [String] = []
        do {
            while true {
                let (ids, next) = try lifecycle.whileOpen(database: name) {
                    try pool.write { db in
                        let due = try ExpiryRecord.due(at: now, limit: Self.purgeBatchSize, in: db)
                        var request: [String: [RevisionID]] = [:]
                        for id in due { request[id] = try DocumentRecord.fetch(id: id, in: db)?.tree.leaves }
                        let removed = try Self.purge(request, makeDocumentID: makeID, now: clock, indexCache: cache, in: db)
                        return (Array(removed.keys), try ExpiryRecord.next(in: db))
                    }
                }
                expiryCommitted(next: next)
                purged += ids
                if ids.count < Self.purgeBatchSize { break }
            }
        } catch {
            throw try storeFailure(
                error, .storeUnwritable, "Expired documents could not be purged; they stay hidden once purged.")
        }
        if !purged.isEmpty { notifier.publish() }
        return purged
    }

    /// Called after each commit with the earliest expiry time: starts the background purge when something
    /// will expire.
    func expiryCommitted(next: Double?) {
        guard expiry.update(next: next), !options.readOnly else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let wait = self?.secondsUntilNextExpiry() else { break }
                try? await Task.sleep(for: .seconds(wait))
                guard let self, !Task.isCancelled, !self.isClosed else { break }
                do { try self.purgeExpiredIfDue() } catch { break }
            }
            self?.expiry.purgerEnded()
        }
        if !expiry.adopt(task) { task.cancel() }
    }

    /// How long the background purge sleeps: until the next expiry, at most a minute (the clock may be
    /// moved, or an earlier expiry written meanwhile); nil when nothing expires.
    private func secondsUntilNextExpiry() -> Double? {
        guard let next = expiry.nextExpiry else { return nil }
        return min(max(next - options.now().timeIntervalSince1970, 0.01), 60)
    }
}
