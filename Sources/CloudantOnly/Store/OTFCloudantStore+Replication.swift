public import CloudantSync
public import Dispatch
public import Foundation

/// What one `OTFCloudantStore.synchronize(with:authentication:timeout:)` moved each way.
public struct OTFSynchronizationResult: Sendable, Hashable {
    /// The push: this store's changes sent to the remote database.
    public var pushed: ReplicationStats
    /// The pull: the remote database's changes received.
    public var pulled: ReplicationStats
}

/// Syncing the drop-in store with a CouchDB-compatible database (CouchDB, Cloudant, `cloudant serve`), as
/// apps of the original did around it: push, then pull, one-shot, with CouchDB's replication protocol.
///
/// ```swift
/// let result = try await store.synchronize(
///     with: URL(string: "https://db.example.com/theraforge_user_42")!,
///     authentication: .basic(user: "device", password: secret))
/// print(result.pushed.docsWritten, result.pulled.docsWritten)
/// ```
extension OTFCloudantStore {
    /// Pushes this store's changes to `remote`, then pulls the remote database's, from the checkpoints of
    /// the last run. The remote database is created when missing.
    ///
    /// - Parameters:
    ///   - remote: The remote database's URL.
    ///   - authentication: How to log in.
    ///   - timeout: How long each request may take.
    /// - Returns: What moved each way.
    /// - Throws: `OTFCloudantError.timedOut(reason:)` when a request times out (the remote answered
    ///   408 or 504, or nothing came within `timeout`) or the store's own `timeout` passes;
    ///   `OTFCloudantError.remoteSynchronizationFailed(reason:)` when the remote is unreachable,
    ///   refuses the credentials or the request; `OTFCloudantError.invalidValue(reason:)` for a
    ///   URL that names no database. What moved before a failure stays; the next run resumes.
    @discardableResult
    public func synchronize(
        with remote: URL, authentication: RemoteAuthentication = .none, timeout: Duration = .seconds(60)
    ) async throws(OTFCloudantError) -> OTFSynchronizationResult {
        let local = documentStore
        return try await perform(.synchronize) {
            let peer = try HTTPPeer(url: remote, authentication: authentication, timeout: timeout)
            try await peer.createIfMissing()
            let pushed = try await Replicator(source: LocalPeer(local), target: peer).run()
            let pulled = try await Replicator(source: peer, target: LocalPeer(local)).run()
            return OTFSynchronizationResult(pushed: pushed, pulled: pulled)
        }
    }

    /// ``synchronize(with:authentication:timeout:)`` with the result delivered to `completion` exactly once, on
    /// `callbackQueue`.
    public func synchronize(
        with remote: URL, authentication: RemoteAuthentication = .none, timeout: Duration = .seconds(60),
        callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<OTFSynchronizationResult, OTFCloudantError>) -> Void)? = nil
    ) {
        Task {
            let result: Result<OTFSynchronizationResult, OTFCloudantError>
            do throws(OTFCloudantError) {
                result = .success(try await synchronize(with: remote, authentication: authentication, timeout: timeout))
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion?(result) }
        }
    }
}
