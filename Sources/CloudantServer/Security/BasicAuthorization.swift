internal import CloudantCore
internal import HTTPTypes

/// What a request's `Authorization: Basic …` header says: read in one place for authentication and for the
/// audit trail's record of a refused login.
enum BasicAuthorization {
    /// No basic-auth header, or one that names nobody: without a `:`, or CouchDB's `_:_` (its way for a client
    /// to send no credentials), as `couch_httpd_auth:basic_name_pw` reads them.
    case absent
    /// A basic-auth header whose token is not base64 (CouchDB's `400 bad_request`).
    case malformed
    /// The name and password (the password may contain `:`).
    case credentials(name: String, password: String)

    /// Reads the header's bytes directly (every authenticated request passes here): the scheme compared
    /// without case, spaces and tabs around the token ignored, the token decoded as RFC 4648 base64.
    init(_ headers: HTTPFields) {
        guard let authorization = headers[.authorization] else {
            self = .absent
            return
        }
        var value = Substring(authorization).utf8
        let scheme = "basic ".utf8
        guard value.count >= scheme.count, zip(value, scheme).allSatisfy({ Self.lowercased($0) == $1 }) else {
            self = .absent
            return
        }
        value.removeFirst(scheme.count)
        while let first = value.first, Self.isBlank(first) { value.removeFirst() }
        while let last = value.last, Self.isBlank(last) { value.removeLast() }
        guard let decoded = Base64.decode(strict: value) else {
            self = .malformed
            return
        }
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else {
            self = .absent
            return
        }
        let (name, password) = (
            String(decoding: decoded[..<colon], as: UTF8.self), String(decoding: decoded[(colon + 1)...], as: UTF8.self)
        )
        self = name == "_" && password == "_" ? .absent : .credentials(name: name, password: password)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// The name, when the header carries one.
    var name: String? {
        if case .credentials(let name, _) = self { return name }
        return nil
    }
}
