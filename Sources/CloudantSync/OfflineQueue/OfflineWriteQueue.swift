public import CloudantCore
public import CloudantStore
internal import Foundation

/// The writes made on this device that a remote database does not hold yet, and their replay.
///
/// The queue itself lives in the store (`PendingWrite`), written in the same transaction
/// as each write, so it survives `kill -9` exactly when the write does. A replay sends each queued
/// revision, oldest first, with its revision history (`_bulk_docs` with `new_edits: false`, as the
/// replicator does), so:
/// - a write the remote already applied (the connection died after the server committed) is recognised
///   there and never applied twice;
/// - an edit made on the remote meanwhile becomes a conflict rather than being overwritten, and the queue
///   settles it with its ``DocumentConflictPolicy`` (pull the document, resolve, push the resolution);
/// - deletes travel as tombstones.
///
/// ```swift
/// let queue = OfflineWriteQueue(store: store, remote: remote)
/// let report = try await queue.replay()       // throws peerUnreachable while the remote is away
/// await queue.scheduleReplay()                 // or: keep trying in the background, with backoff
/// ```
/// Share one queue between the repositories of one store and remote, so one replay runs at a time.
public actor OfflineWriteQueue {
    /// The store holding the writes and the queue.
    public let store: DocumentStore
    /// The remote the writes are for.
    public let remote: RemoteDatabase
    /// How a replayed write that conflicts with an edit made on the remote is settled.
    public let conflictPolicy: DocumentConflictPolicy
    /// How long to wait between replays while the remote cannot be reached.
    public let backoff: Backoff
    /// Writes per `_bulk_docs` request.
    public let batchSize: Int

    private var running: Task<ReplayReport, any Error>?
    private var background: Task<Void, Never>?
    private var consecutiveFailures = 0

    /// Creates the queue of `store`'s writes for `remote`.
    ///
    /// - Parameters:
    ///   - store: The store the writes were made to and are queued in.
    ///   - remote: The database they are for.
    ///   - conflictPolicy: How a conflict made while offline is settled; by default the write
    ///     made on this device wins. The queued write is the conflict's local side.
    ///   - backoff: How long to wait between replays while the remote cannot be reached.
    ///   - batchSize: Writes per `_bulk_docs` request.
    public init(
        store: DocumentStore, remote: RemoteDatabase, conflictPolicy: DocumentConflictPolicy = .keepLocal,
        backoff: Backoff = Backoff(), batchSize: Int = 500
    ) {
        self.store = store
        self.remote = remote
        self.conflictPolicy = conflictPolicy
        self.backoff = backoff
        self.batchSize = max(1, batchSize)
    }

    /// The queued writes, oldest first.
    public func pending() async throws -> [PendingWrite] {
        try await store.pendingWrites(for: remote.identity)
    }

    /// Forgets every queued write; the documents stay as they are on this device.
    /// - Returns: how many were forgotten.
    @discardableResult
    public func clear() async throws -> Int {
        try await store.clearPendingWrites(for: remote.identity)
    }

    /// Whether a background replay is waiting for the remote.
    public var isRetrying: Bool { background != nil }

    /// Sends every queued write, oldest first. One replay runs at a time; a call made while one runs
    /// waits for it and then runs its own pass, so writes queued meanwhile are sent too.
    ///
    /// - Returns: What was sent, skipped, refused and resolved.
    /// - Throws: `CloudantError` (a retryable peer code, such as `peerUnreachable`, while the remote cannot be
    ///   reached; what was sent before stays sent and leaves the queue).
    @discardableResult
    public func replay() async throws(CloudantError) -> ReplayReport {
        // Passes run one after another: each waits for the one before it (whatever its outcome).
        let previous = running
        let pass = Task {
            _ = try? await previous?.value
            return try await self.replayPass()
        }
        running = pass
        defer { if running == pass { running = nil } }
        do {
            let report = try await pass.value
            consecutiveFailures = 0
            return report
        } catch {
            consecutiveFailures += 1
            throw CloudantError.fromRemote(error, url: remote.url)
        }
    }

    /// Keeps replaying in the background until the queue is empty, waiting ``backoff`` between attempts
    /// while the remote cannot be reached. Does nothing when a background replay already runs.
    public func scheduleReplay() {
        guard background == nil else { return }
        background = Task { await self.replayUntilEmpty() }
    }

    /// Stops the background replay and cancels a replay in progress (queued writes stay queued; what a
    /// cancelled replay already sent is recognised by the remote when it is sent again).
    public func stop() {
        background?.cancel()
        background = nil
        running?.cancel()
    }

    private func replayUntilEmpty() async {
        defer { background = nil }
        while !Task.isCancelled {
            do {
                try await replay()
                if try await store.pendingWriteCount(for: remote.identity) == 0 { return }
                // Writes the remote refused stay queued; try them again after a while, not in a loop.
                try await Task.sleep(for: backoff.maximum)
            } catch {
                guard !Task.isCancelled else { return }
                try? await Task.sleep(for: backoff.delay(afterFailures: consecutiveFailures))
            }
        }
    }

    // MARK: One pass

    private func replayPass() async throws -> ReplayReport {
        var report = ReplayReport()
        var after: Int64 = 0
        while true {
            try Task.checkCancellation()
            let entries = Self.batch(
                try await store.pendingWrites(for: remote.identity, after: after, limit: batchSize))
            guard let last = entries.last else { break }
            after = last.id
            // Each revision with `_revisions` and its attachments inline; `latest` answers with the newest
            // leaf descending from it when a later edit on this device replaced it.
            let fetched = try await store.bulkGet(entries.map { BulkGetRequest(id: $0.documentID, rev: $0.rev) }, latest: true)
            var documents: [JSONObject] = []
            var carried: [PendingWrite] = []
            var gone: [Int64] = []
            for (entry, result) in zip(entries, fetched) {
                let found = result.docs.compactMap { if case .ok(let document) = $0 { document } else { nil } }
                if found.isEmpty {
                    gone.append(entry.id)
                } else {
                    documents += found
                    carried.append(entry)
                }
            }
            let failures: [WriteFailure]
            do {
                failures = documents.isEmpty ? [] : try await remote.peer.write(documents)
            } catch {
                try? await store.recordPendingWriteAttempt(carried.map(\.id), error: "\(error)")
                throw error
            }
            let refusedIDs = Set(failures.compactMap(\.id))
            let refused = carried.filter { refusedIDs.contains($0.documentID) }
            for entry in refused {
                let reason = failures.first { $0.id == entry.documentID }.map { "\($0.error): \($0.reason)" }
                try await store.recordPendingWriteAttempt([entry.id], error: reason)
            }
            let delivered = carried.filter { !refusedIDs.contains($0.documentID) }
            // The revision sent may be newer than the one queued (a later edit on this device descends
            // from it, and the store answers with the latest leaf): that is the one this device stands by.
            var sentRevision: [String: String] = [:]
            for document in documents {
                if let id = document["_id"]?.stringValue, let rev = document["_rev"]?.stringValue { sentRevision[id] = rev }
            }
            report.resolvedConflicts += try await settleConflicts(among: delivered.map(\.documentID), sent: sentRevision)
            try await store.removePendingWrites(delivered.map(\.id) + gone)
            report.sent += delivered.count
            report.skipped += gone.count
            report.refused += refused
        }
        return report
    }

    /// The entries up to (not including) the first whose document appeared earlier, so one request never
    /// carries two revisions of a document and the older one reaches the remote first.
    package static func batch(_ entries: [PendingWrite]) -> [PendingWrite] {
        var seen: Set<String> = []
        var batch: [PendingWrite] = []
        for entry in entries {
            guard seen.insert(entry.documentID).inserted else { break }
            batch.append(entry)
        }
        return batch
    }

    /// Finds which of the delivered writes the remote now holds in conflict and settles each: the remote's
    /// branches are pulled here, the policy picks (or merges), and the resolution is pushed back.
    private func settleConflicts(among ids: [String], sent queuedRevision: [String: String]) async throws -> [ResolvedConflict] {
        guard !ids.isEmpty else { return [] }
        let answer = try await remote.client.send(
            "POST", "_all_docs", query: [("include_docs", "true"), ("conflicts", "true")],
            body: ["keys": .array(ids.map { .string($0) })])
        guard let rows = answer.body?["rows"]?.arrayValue else { throw HTTPPeer.unexpected(answer, "an _all_docs answer without rows") }
        let conflicted = rows.compactMap { row -> String? in
            guard let conflicts = row["doc"]?["_conflicts"]?.arrayValue, !conflicts.isEmpty else { return nil }
            return row["id"]?.stringValue
        }
        guard !conflicted.isEmpty else { return [] }
        let only = ReplicationOptions(filter: .documentIDs(conflicted), useCheckpoints: false)
        try await Replicator(source: remote.peer, target: LocalPeer(store), options: only).run()
        var resolved: [ResolvedConflict] = []
        for id in conflicted {
            let leaves = try await ConflictResolver.leaves(of: id, in: store)
            guard leaves.count > 1 else { continue }
            // The write this device sent is the local side; whatever else the remote holds is the other.
            let queued = queuedRevision[id]
            let conflict = Conflict(
                id: id, local: leaves.filter { $0["_rev"]?.stringValue == queued },
                remote: leaves.filter { $0["_rev"]?.stringValue != queued })
            let decision = try await ConflictResolver.decide(conflictPolicy, conflict: conflict, leaves: leaves)
            resolved.append(try await ConflictResolver.resolve(id: id, leaves: leaves, resolution: decision, in: store))
        }
        try await Replicator(source: LocalPeer(store), target: remote.peer, options: only).run()
        return resolved
    }
}
