public import CloudantCore
public import CloudantStore
internal import Foundation

/// The store and a remote database behind one ``Repository``, each action following its
/// ``RepositoryStrategy`` rule (Evocation's `Proxy<T>`), with what Evocation lacked: writes made
/// while the remote is away are kept and queued durably (``OfflineWriteQueue``), revisions travel with
/// them, conflicts are settled, deletes propagate.
///
/// ```swift
/// let remote = try RemoteDatabase(url: URL(string: "http://127.0.0.1:5984/notes")!, authentication: .basic(user: "ana", password: p))
/// let notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .remoteFirst)
///
/// let saved = try await notes.storeOne(Note(id: "n1", text: "Call the clinic"))
/// print(saved.origin)          // remote, or "local after remote failed" (then saved.pendingWrites is not empty)
/// let all = try await notes.findAll()
/// print(all.origin)            // remote, or "local after remote failed"
/// ```
/// Repositories of several entity types over one store and remote should share one queue
/// (`queue:`), so one replay runs at a time and writes reach the remote in the order they were made.
public struct RepositoryProxy<Entity: CloudantEntity>: Repository where Entity.ID: CustomStringConvertible {
    /// The store on this device.
    public let local: LocalRepository<Entity>
    /// The remote database.
    public let remote: RemoteRepository<Entity>
    /// Which source each action asks first, falls back to, and synchronizes.
    public let strategy: RepositoryStrategy
    /// The writes the remote does not hold yet.
    public let queue: OfflineWriteQueue

    /// Creates a proxy.
    ///
    /// - Parameters:
    ///   - store: The store that answers locally and keeps writes.
    ///   - remote: The remote database.
    ///   - strategy: The rules; ``RepositoryStrategy/offlineFirst`` by default.
    ///   - queue: The offline queue to share with the store's other repositories for this remote; a new
    ///     one (keeping the write made on this device when a replay conflicts) when `nil`.
    public init(
        store: DocumentStore, remote: RemoteDatabase, strategy: RepositoryStrategy = .offlineFirst,
        queue: OfflineWriteQueue? = nil
    ) {
        local = LocalRepository(store: store)
        self.remote = RemoteRepository(database: remote, options: store.options)
        self.strategy = strategy
        self.queue = queue ?? OfflineWriteQueue(store: store, remote: remote)
    }

    var store: DocumentStore { local.store }
    var identity: String { remote.database.identity }

    // MARK: Reads

    public func find(_ criteria: RepositoryCriteria) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await read(.find, ids: { $0.map(\.id.description) }, isMiss: { _ in false }) { source throws(CloudantError) in
            source == .local ? try await local.find(criteria) : try await remote.find(criteria)
        }
    }

    public func findOne(id: Entity.ID) async throws(CloudantError) -> RepositoryResult<Entity?> {
        try await read(.findOne, ids: { $0.map { [$0.id.description] } ?? [] }, isMiss: { $0 == nil }) { source throws(CloudantError) in
            source == .local ? try await local.findOne(id: id) : try await remote.findOne(id: id)
        }
    }

    /// Asks the rule's target, then its fallback when the target fails (or misses, for a lookup by id);
    /// copies what the remote answered into the store when the rule synchronizes.
    private func read<Value: Sendable>(
        _ action: RepositoryStrategy.Action, ids: (Value) -> [String], isMiss: (Value) -> Bool,
        _ ask: (RepositorySource) async throws(CloudantError) -> RepositoryResult<Value>
    ) async throws(CloudantError) -> RepositoryResult<Value> {
        let rule = strategy.rule(for: action)
        var result: RepositoryResult<Value>
        if rule.target == .remote { await sendQueuedWrites() }
        do {
            result = try await ask(rule.target)
            if isMiss(result.value), let fallback = rule.fallback {
                let missed = result.metadata
                if fallback == .remote { await sendQueuedWrites() }
                if let other = try? await ask(fallback), !isMiss(other.value) {
                    result = other
                    result.origin = RepositoryOrigin(source: fallback, isFallback: true)
                    result.metadata.merge(missed) { answered, _ in answered }
                }
            }
        } catch let failure where failure.allowsFallback && rule.fallback != nil {
            guard let fallback = rule.fallback else { throw failure }
            if fallback == .remote { await sendQueuedWrites() }
            do {
                result = try await ask(fallback)
            } catch {
                throw Self.bothFailed(target: failure, fallback: error)
            }
            result.origin = RepositoryOrigin(source: fallback, isFallback: true)
            result.metadata[rule.target] = RepositoryMetadata(date: store.options.now(), failure: failure)
        }
        if result.origin.source == .remote && rule.synchronize {
            await keepLocally(ids: ids(result.value), in: &result.metadata)
        }
        return result
    }

    /// Pulls these documents from the remote into the store, histories and all (a replication filtered by
    /// id), so what the remote answered is there offline; a failure is noted, not thrown: the answer stands.
    private func keepLocally(ids: [String], in metadata: inout [RepositorySource: RepositoryMetadata]) async {
        guard !ids.isEmpty else { return }
        do {
            let only = ReplicationOptions(filter: .documentIDs(ids), useCheckpoints: false)
            try await Replicator(source: remote.database.peer, target: LocalPeer(store), options: only).run()
            metadata[.local] = RepositoryMetadata(date: store.options.now())
        } catch {
            metadata[.local] = RepositoryMetadata(date: store.options.now(), failure: CloudantError.fromStore(error))
        }
    }

    /// Sends writes queued earlier before the remote is asked, so it answers with them and later writes
    /// reach it after earlier ones. Best effort: while the remote is away, the call that follows fails
    /// (and falls back) on its own.
    func sendQueuedWrites() async {
        guard let count = try? await store.pendingWriteCount(for: identity), count > 0 else { return }
        _ = try? await queue.replay()
    }

    static func bothFailed(target: CloudantError, fallback: CloudantError) -> CloudantError {
        var error = fallback
        error.message += " (the target failed first: \(target))"
        return error
    }
}
