internal import Crypto
internal import Foundation
internal import HTTPTypes

/// CouchDB's proxy authentication (`proxy_authentication_handler`): a proxy in front of the server that has
/// authenticated the user names them in `X-Auth-CouchDB-UserName` and their roles, comma-separated, in
/// `X-Auth-CouchDB-Roles` (header names as `chttpd_auth/x_auth_username` and `x_auth_roles` set them). With
/// `chttpd_auth/proxy_use_secret` true and `chttpd_auth/secret` set, the proxy must also send
/// `X-Auth-CouchDB-Token`, the hex HMAC of the name under that secret with one of
/// `chttpd_auth/hash_algorithms` (`sha256, sha` by default); a wrong token leaves the request to the next
/// handler. Only a server whose `chttpd/authentication_handlers` names this handler reads these headers.
enum ProxyAuthentication {
    struct Settings: Sendable {
        var userNameHeader = "X-Auth-CouchDB-UserName"
        var rolesHeader = "X-Auth-CouchDB-Roles"
        var tokenHeader = "X-Auth-CouchDB-Token"
        /// The secret tokens are checked with; nil accepts the headers as they are.
        var secret: String?
        var hashAlgorithms = ["sha256", "sha"]
    }

    /// The user the headers name, or nil when they name none (or their token does not match).
    static func user(in headers: HTTPFields, settings: Settings) -> UserContext? {
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
        guard let name = header(settings.userNameHeader) else { return nil }
        let roles = (header(settings.rolesHeader) ?? "").components(separatedBy: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let secret = settings.secret {
            guard let token = header(settings.tokenHeader)?.lowercased(),
                settings.hashAlgorithms.contains(where: { algorithm in
                    hmac(algorithm, secret, name).map { ConstantTime.equal(Array(token.utf8), Array($0.utf8)) } ?? false
                })
            else { return nil }
        }
        return UserContext(name: name, roles: roles)
    }

    /// The hex HMAC of `message` with a hash CouchDB names (`sha`, `sha256`, `sha384`, `sha512`); nil for another.
    private static func hmac(_ algorithm: String, _ secret: String, _ message: String) -> String? {
        let key = SymmetricKey(data: Array(secret.utf8))
        let bytes = Array(message.utf8)
        return switch algorithm {
        case "sha": Hex.encode(HMAC<Insecure.SHA1>.authenticationCode(for: bytes, using: key))
        case "sha256": Hex.encode(HMAC<SHA256>.authenticationCode(for: bytes, using: key))
        case "sha384": Hex.encode(HMAC<SHA384>.authenticationCode(for: bytes, using: key))
        case "sha512": Hex.encode(HMAC<SHA512>.authenticationCode(for: bytes, using: key))
        default: nil
        }
    }
}
