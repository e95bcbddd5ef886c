internal import CloudantCore
internal import Crypto

/// The `AuthSession` cookie: CouchDB's `base64url("name:HEXTIME:" + HMAC)` with a session token added,
/// `base64url("name:HEXTIME:TOKEN:" + HMAC)`, signed with the server secret and the user's password salt, so
/// a password change ends the user's sessions. The token names the session's record in ``SessionRegistry``,
/// which is what makes a session revocable.
///
/// CouchDB signs with HMAC-SHA1; this server uses HMAC-SHA256. Cookies are opaque to clients, so only a
/// cookie minted by CouchDB itself would not verify here, which no client expects anyway.
struct SessionCookie: Sendable {
    /// The server secret.
    var secret: [UInt8]

    /// A cookie value for `name`'s session `token`, issued at `time` (seconds since 1970).
    func make(name: String, token: String, salt: String, time: Int) -> String {
        let payload = "\(name):\(String(time, radix: 16, uppercase: true)):\(token)"
        let mac = signature(payload, salt: salt)
        return Base64.encodeURL(Array(payload.utf8) + [UInt8(ascii: ":")] + mac)
    }

    /// What a cookie value says, before its signature is checked.
    struct Parsed: Sendable {
        var name: String
        var time: Int
        var token: String
        /// The signed part: `name:HEXTIME:TOKEN`.
        var payload: String
        var mac: [UInt8]
    }

    /// Whether a cookie value is not a session cookie at all, as `couch_httpd_auth:cookie_authentication_handler/2`
    /// finds one: not base64url, or fewer than three `:`-separated parts (a cookie CouchDB minted, which has
    /// three, is well formed but does not verify here).
    static func isMalformed(_ value: String) -> Bool {
        guard let bytes = Base64.decodeURL(value) else { return true }
        return bytes.lazy.filter { $0 == UInt8(ascii: ":") }.count < 2
    }

    /// The name, issue time and token in a cookie value, before the signature is checked.
    static func parse(_ value: String) -> Parsed? {
        guard let bytes = Base64.decodeURL(value) else { return nil }
        let colon = UInt8(ascii: ":")
        guard let first = bytes.firstIndex(of: colon),
            let second = bytes[(first + 1)...].firstIndex(of: colon),
            let third = bytes[(second + 1)...].firstIndex(of: colon)
        else { return nil }
        let name = String(decoding: bytes[..<first], as: UTF8.self)
        let timeText = String(decoding: bytes[(first + 1)..<second], as: UTF8.self)
        let token = String(decoding: bytes[(second + 1)..<third], as: UTF8.self)
        guard let time = Int(timeText, radix: 16), !token.isEmpty else { return nil }
        return Parsed(
            name: name, time: time, token: token, payload: String(decoding: bytes[..<third], as: UTF8.self),
            mac: Array(bytes[(third + 1)...]))
    }

    /// Whether `mac` signs `payload` for a user with `salt`, in constant time.
    func verify(payload: String, mac: [UInt8], salt: String) -> Bool {
        ConstantTime.equal(signature(payload, salt: salt), mac)
    }

    private func signature(_ payload: String, salt: String) -> [UInt8] {
        let key = SymmetricKey(data: secret + Array(salt.utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key))
    }
}
