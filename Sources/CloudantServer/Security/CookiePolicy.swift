/// How session cookies are marked and how long a session may last at most.
struct CookiePolicy: Sendable {
    /// The cookie's `SameSite` attribute.
    var sameSite: CookieSameSite = .lax
    /// Whether the cookie carries `Secure` (only sent over HTTPS).
    var secure = false
    /// Seconds a session may last from its login, however much it is used; `nil` for no limit.
    var maxLifetime: Int? = nil

    /// The attributes after `Max-Age`: `HttpOnly` always (scripts never read the cookie), then `SameSite`
    /// and `Secure`.
    var attributes: String {
        "; HttpOnly; SameSite=\(sameSite.rawValue)" + (secure ? "; Secure" : "")
    }
}
