public import Foundation

/// A database on a CouchDB-compatible server (Apache CouchDB, IBM Cloudant, `cloudant serve`) that
/// repositories read and write, and offline writes are replayed to. Its answers are held to the same rules as a
/// replication's (``PeerLimits``, ``PeerViolation``): never read without bound, never taken for what they are
/// not, and credentials never follow a redirect to another host.
///
/// ```swift
/// let remote = try RemoteDatabase(url: URL(string: "https://host:6984/notes")!, authentication: .session(user: "ana", password: p))
/// ```
public struct RemoteDatabase: Sendable {
    /// The database as a replication peer (the same requests, credentials and timeouts).
    public let peer: HTTPPeer

    /// Creates a remote database.
    ///
    /// - Parameters:
    ///   - url: The database URL.
    ///   - authentication: How requests prove who they are; credentials in the URL become basic
    ///     authentication and never appear in ``identity``.
    ///   - headers: Extra headers on every request.
    ///   - timeout: Per request. A write whose remote does not answer in time is kept and queued (when its
    ///     rule lets it reach the store), so keep it short enough for the app to stay responsive.
    ///   - limits: The bounds every answer is read within (``PeerLimits``), as for replication.
    ///   - transport: What carries the requests (``URLSessionTransport`` unless given another).
    /// - Throws: `CloudantError` with code `invalidInput` for a URL that names no database.
    public init(
        url: URL, authentication: RemoteAuthentication = .none, headers: [String: String] = [:],
        timeout: Duration = .seconds(15), limits: PeerLimits = PeerLimits(), transport: any HTTPTransport = URLSessionTransport()
    ) throws {
        peer = try HTTPPeer(
            url: url, authentication: authentication, headers: headers, timeout: timeout, limits: limits, transport: transport)
    }

    /// The database URL, without credentials.
    public var url: URL { peer.url }

    /// What names this remote in the offline queue: its URL without credentials or query.
    public var identity: String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        return components?.string ?? url.absoluteString
    }

    var client: CouchHTTPClient { peer.client }
}
