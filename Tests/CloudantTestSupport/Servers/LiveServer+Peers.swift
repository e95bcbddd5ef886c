public import CloudantSync
import Foundation

extension LiveServer {
    /// How a replicator or client logs in as the server admin.
    public static let adminCredentials = RemoteAuthentication.basic(user: admin.name, password: admin.password)

    /// Database `name` on this server as a replication peer, logged in as the admin, created if missing. A
    /// request may take up to ``TestDeadline/generous``: only a broken run is that slow.
    /// - Throws: what ``CloudantSync/HTTPPeer`` throws when the database cannot be created.
    public func database(_ name: String) async throws -> HTTPPeer {
        let peer = try HTTPPeer(url: url(name), authentication: Self.adminCredentials, timeout: TestDeadline.generous)
        try await peer.createIfMissing()
        return peer
    }
}
