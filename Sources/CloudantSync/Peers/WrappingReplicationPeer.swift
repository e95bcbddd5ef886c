package import CloudantCore

/// A peer wrapped around another, `base`: every call of the protocol goes to `base` unless the wrapper
/// implements it itself, so a wrapper spells out only what it changes (records writes, counts fetches, slows
/// a call down). Attachments are never taken separately unless the wrapper says so, and it has no filter
/// functions: those calls keep ``ReplicationPeer``'s defaults.
package protocol WrappingReplicationPeer: ReplicationPeer {
    /// The peer the calls go to.
    var base: any ReplicationPeer { get }
}

extension WrappingReplicationPeer {
    package func identity() async throws -> String { try await base.identity() }
    package func info() async throws -> PeerInfo { try await base.info() }
    package func localDocument(id: String) async throws -> JSONObject? { try await base.localDocument(id: id) }
    package func putLocalDocument(id: String, body: JSONObject) async throws { try await base.putLocalDocument(id: id, body: body) }
    package func changes(_ request: ChangesRequest) async throws -> ChangesPage { try await base.changes(request) }
    package func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        try await base.revsDiff(revisions)
    }
    package func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] { try await base.fetch(requests) }
    package func write(_ documents: [JSONObject]) async throws -> [WriteFailure] { try await base.write(documents) }
    package func ensureFullCommit() async throws { try await base.ensureFullCommit() }
}
