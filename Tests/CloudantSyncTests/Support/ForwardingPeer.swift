import CloudantCore
import CloudantSync

/// A test peer wrapped around `base`: every call of the protocol goes to `base` unless the peer implements it
/// itself, so a test peer spells out only what it changes. Attachments are never taken separately unless the
/// peer says so (the protocol's defaults).
protocol WrappingPeer: ReplicationPeer {
    var base: any ReplicationPeer { get }
}

extension WrappingPeer {
    func identity() async throws -> String { try await base.identity() }
    func info() async throws -> PeerInfo { try await base.info() }
    func localDocument(id: String) async throws -> JSONObject? { try await base.localDocument(id: id) }
    func putLocalDocument(id: String, body: JSONObject) async throws { try await base.putLocalDocument(id: id, body: body) }
    func changes(_ request: ChangesRequest) async throws -> ChangesPage { try await base.changes(request) }
    func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] { try await base.revsDiff(revisions) }
    func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] { try await base.fetch(requests) }
    func write(_ documents: [JSONObject]) async throws -> [WriteFailure] { try await base.write(documents) }
    func ensureFullCommit() async throws { try await base.ensureFullCommit() }
}

/// A peer that passes every protocol call to `base`, except a fetch a test replaces. It takes no attachment
/// separately (the protocol's defaults), so every attachment travels inline through it.
struct ForwardingPeer: WrappingPeer {
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
