public import CloudantCore
internal import Foundation

/// The durable queue of offline writes (``PendingWrite``): revisions written here that a remote database
/// has not acknowledged yet. Repositories fill it; a replay (`OfflineWriteQueue` in CloudantSync, or
/// `cloudant queue replay`) empties it.
extension DocumentStore {
    /// Adds new entities and queues each new revision for `remote`, in one transaction.
    ///
    /// ```swift
    /// let (saved, pending) = try await store.add([note], enqueueingFor: "http://127.0.0.1:5984/notes")
    /// ```
    /// - Returns: the entities with their new `revId`, and the queue entries made.
    /// - Throws: as ``add(_:)``; then nothing was written or queued.
    public func add<Entity: CloudantEntity>(
        _ items: [Entity], enqueueingFor remote: String
    ) async throws -> (entities: [Entity], pending: [PendingWrite]) where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: .storeUnwritable, enqueue: (remote, .store), document: Self.newDocument)
    }

    /// Updates entities and queues each new revision for `remote`, in one transaction.
    /// - Throws: as ``update(_:)``; then nothing was written or queued.
    public func update<Entity: CloudantEntity>(
        _ items: [Entity], enqueueingFor remote: String
    ) async throws -> (entities: [Entity], pending: [PendingWrite]) where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: .storeUnwritable, enqueue: (remote, .update), document: Self.editedDocument)
    }

    /// Deletes entities and queues each tombstone for `remote`, in one transaction.
    /// - Throws: as ``delete(_:)``; then nothing was written or queued.
    public func delete<Entity: CloudantEntity>(
        _ items: [Entity], enqueueingFor remote: String
    ) async throws -> (entities: [Entity], pending: [PendingWrite]) where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: .storeUnwritable, enqueue: (remote, .remove), document: Self.tombstone)
    }

    /// The queued writes for `remote` (every remote when `nil`), oldest first.
    ///
    /// - Parameters:
    ///   - remote: The remote database's identity; every remote when `nil`.
    ///   - after: Only entries queued after this position (for paging).
    ///   - limit: At most this many.
    public func pendingWrites(for remote: String? = nil, after: Int64 = 0, limit: Int? = nil) async throws -> [PendingWrite] {
        try await read(.storeUnreadable) { db in try PendingWriteRecord.fetch(remote: remote, after: after, limit: limit, in: db) }
    }

    /// How many writes are queued for `remote` (every remote when `nil`).
    public func pendingWriteCount(for remote: String? = nil) async throws -> Int {
        try await read(.storeUnreadable) { db in try PendingWriteRecord.count(remote: remote, in: db) }
    }

    /// Removes queue entries the remote now holds (positions not queued are ignored).
    public func removePendingWrites(_ ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await write(.storeUnwritable) { db in try PendingWriteRecord.remove(positions: ids, in: db) }
    }

    /// Empties the queue for `remote` (every remote when `nil`), leaving the documents as they are here.
    /// - Returns: how many entries were removed.
    @discardableResult
    public func clearPendingWrites(for remote: String? = nil) async throws -> Int {
        try await write(.storeUnwritable) { db in try PendingWriteRecord.removeAll(remote: remote, in: db) }
    }

    /// Records that a replay tried to send these entries: counts the attempt and keeps why it failed
    /// (`nil` when the remote refused nothing but the entry stays, for example while a conflict waits).
    public func recordPendingWriteAttempt(_ ids: [Int64], error: String?) async throws {
        guard !ids.isEmpty else { return }
        let now = options.now()
        try await write(.storeUnwritable) { db in try PendingWriteRecord.recordAttempt(positions: ids, error: error, at: now, in: db) }
    }
}
