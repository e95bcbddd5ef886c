internal import CloudantCore
internal import CloudantStore
public import CloudantSync
public import Foundation

/// A push or a pull of a model store: CDTDatastore's `CDTISReplicator`, async. A pull remembers which
/// revisions it brought in, so ``processConflicts()`` can tell, for each conflicted object, the side that
/// was here before the pull (Core Data's object) from the side that arrived (the store's).
///
/// ```swift
/// let pull = try models.replicatorThatPulls(from: URL(string: "http://127.0.0.1:5984/recipes")!,
///                                           authentication: .basic(user: "admin", password: "secret"))
/// try await pull.run()
/// let conflicts = try await pull.processConflicts()
/// try await models.resolve(conflicts, policy: .mergeProperties(preferring: .remote))
/// ```
public final class ModelReplicator: Sendable {
    /// Which way documents move.
    public enum Direction: Sendable, Hashable {
        /// From the model store to the remote.
        case push
        /// From the remote into the model store.
        case pull
    }

    /// Which way documents move.
    public let direction: Direction
    /// The model store.
    public let models: ModelStore
    /// The replicator doing the work (its `progress` stream and `cancel()` are there).
    public let replicator: Replicator
    let recorder: RecordingPeer?

    init(direction: Direction, models: ModelStore, remote: any ReplicationPeer, options: ReplicationOptions) {
        self.direction = direction
        self.models = models
        switch direction {
        case .push:
            recorder = nil
            replicator = Replicator(source: LocalPeer(models.store), target: remote, options: options)
        case .pull:
            let recorder = RecordingPeer(LocalPeer(models.store))
            self.recorder = recorder
            replicator = Replicator(source: remote, target: recorder, options: options)
        }
    }

    /// Runs the replication once (or until cancelled, when `options.continuous`).
    /// - Throws: what `Replicator.run()` throws.
    @discardableResult
    public func run() async throws -> ReplicationStats {
        try await replicator.run()
    }

    /// The revisions this pull wrote, by document id.
    public var pulledRevisions: [String: Set<String>] { recorder?.written ?? [:] }

    /// After a pull, the model objects with conflicting revisions, as merge conflicts (Core Data's
    /// `NSMergeConflict`: the object before the pull, the pulled version, and their common ancestor when the
    /// revision tree still has it); resolve them with ``ModelStore/resolve(_:policy:)``.
    /// A conflict on `CDTISMetaData` is settled here by keeping CouchDB's winner, on every replica alike.
    /// - Throws: `CloudantError` when the store cannot be read.
    public func processConflicts() async throws -> [ModelConflict] {
        try await models.mergeConflicts(pulled: pulledRevisions)
    }
}

extension ModelStore {
    /// A replicator that pushes this store to `remote` (CDTIncrementalStore's `replicatorThatPushesToURL:`).
    public func replicatorThatPushes(to remote: any ReplicationPeer, options: ReplicationOptions = ReplicationOptions()) -> ModelReplicator {
        ModelReplicator(direction: .push, models: self, remote: remote, options: options)
    }

    /// A replicator that pulls `remote` into this store (CDTIncrementalStore's `replicatorThatPullsFromURL:`).
    public func replicatorThatPulls(from remote: any ReplicationPeer, options: ReplicationOptions = ReplicationOptions()) -> ModelReplicator {
        ModelReplicator(direction: .pull, models: self, remote: remote, options: options)
    }

    /// A replicator that pushes to the CouchDB-compatible database at `url`.
    /// - Throws: what `HTTPPeer` throws for an unusable URL.
    public func replicatorThatPushes(
        to url: URL, authentication: RemoteAuthentication = .none, options: ReplicationOptions = ReplicationOptions()
    ) throws -> ModelReplicator {
        replicatorThatPushes(to: try HTTPPeer(url: url, authentication: authentication), options: options)
    }

    /// A replicator that pulls from the CouchDB-compatible database at `url`.
    /// - Throws: what `HTTPPeer` throws for an unusable URL.
    public func replicatorThatPulls(
        from url: URL, authentication: RemoteAuthentication = .none, options: ReplicationOptions = ReplicationOptions()
    ) throws -> ModelReplicator {
        replicatorThatPulls(from: try HTTPPeer(url: url, authentication: authentication), options: options)
    }
}

/// The target of a pull, remembering every revision written through it.
final class RecordingPeer: WrappingReplicationPeer, @unchecked Sendable {
    // `lock` protects `revisions`; `base` is immutable.
    private let lock = NSLock()
    private var revisions: [String: Set<String>] = [:]
    let base: any ReplicationPeer

    init(_ base: LocalPeer) { self.base = base }

    var written: [String: Set<String>] { lock.withLock { revisions } }

    func write(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        let failures = try await base.write(documents)
        let failed = Set(failures.compactMap(\.id))
        lock.withLock {
            for document in documents {
                guard let id = document["_id"]?.stringValue, let rev = document["_rev"]?.stringValue, !failed.contains(id) else { continue }
                revisions[id, default: []].insert(rev)
            }
        }
        return failures
    }
}
