import CloudantCore
import CloudantSync

/// A peer that passes every protocol call to `base`, except a fetch a test replaces. It takes no attachment
/// separately (the protocol's defaults), so every attachment travels inline through it.
struct ForwardingPeer: WrappingReplicationPeer {
    let base: any ReplicationPeer
    /// Replaces `base.fetch(_:)` when set (to tamper with what a source sends).
    var fetching: (@Sendable (any ReplicationPeer, [RevisionRequest]) async throws -> [FetchedRevision])?

    init(_ base: any ReplicationPeer, fetching: (@Sendable (any ReplicationPeer, [RevisionRequest]) async throws -> [FetchedRevision])? = nil) {
        self.base = base
        self.fetching = fetching
    }

    func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] {
        if let fetching { return try await fetching(base, requests) }
        return try await base.fetch(requests)
    }
}
