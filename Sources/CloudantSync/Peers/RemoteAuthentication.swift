internal import Foundation

/// How an ``HTTPPeer`` proves who it is to a CouchDB, Cloudant or PouchDB server.
public enum RemoteAuthentication: Sendable, Hashable {
    /// No credentials (or credentials in the URL, which become ``basic(user:password:)``).
    case none
    /// HTTP basic authentication on every request.
    case basic(user: String, password: String)
    /// A cookie session: `POST /_session` once, then the `AuthSession` cookie, logging in again when the
    /// server answers 401 (sessions expire).
    case session(user: String, password: String)
    /// `Authorization: Bearer <token>` (IAM or JWT).
    case bearer(String)

    /// Credentials taken from the environment variable `name`, written `user:password`; ``none`` when it
    /// is unset. Keeps passwords off command lines.
    public static func environment(_ name: String, session: Bool = false) -> RemoteAuthentication {
        guard let value = ProcessInfo.processInfo.environment[name], let colon = value.firstIndex(of: ":") else { return .none }
        let user = String(value[..<colon])
        let password = String(value[value.index(after: colon)...])
        return session ? .session(user: user, password: password) : .basic(user: user, password: password)
    }

    /// The `Authorization` header value for basic and bearer authentication.
    var authorizationHeader: String? {
        switch self {
        case .basic(let user, let password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .bearer(let token): "Bearer " + token
        case .none, .session: nil
        }
    }
}
