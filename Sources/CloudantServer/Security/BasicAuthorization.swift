internal import Foundation
internal import HTTPTypes

/// What a request's `Authorization: Basic …` header says: read in one place for authentication and for the
/// audit trail's record of a refused login.
enum BasicAuthorization {
    /// No basic-auth header.
    case absent
    /// A basic-auth header that is not base64 of `name:password`.
    case malformed
    /// The name and password (the password may contain `:`).
    case credentials(name: String, password: String)

    init(_ headers: HTTPFields) {
        guard let authorization = headers[.authorization], authorization.lowercased().hasPrefix("basic ") else {
            self = .absent
            return
        }
        let encoded = authorization.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
        guard let decoded = Data(base64Encoded: encoded).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        else {
            self = .malformed
            return
        }
        self = .credentials(name: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...]))
    }

    /// The name, when the header carries one.
    var name: String? {
        if case .credentials(let name, _) = self { return name }
        return nil
    }
}
