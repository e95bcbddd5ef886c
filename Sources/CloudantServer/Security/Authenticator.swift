internal import CloudantCore
internal import Crypto
internal import Foundation

/// Checks credentials: the configured server admin and the users of `_users`, by HTTP basic auth or an
/// `AuthSession` cookie.
///
/// A successful PBKDF2 check is remembered (as a SHA-256 of salt and password, never the password), so
/// basic auth on every request does not pay the full key derivation each time; the entry is used only
/// while the stored hash is unchanged.
///
/// A name nobody has costs the same key derivation as a wrong password for a real user (against a decoy
/// hash made at start-up with the configured iterations), so the answer's timing does not tell which
/// names exist. Failed logins are throttled by ``LoginThrottle``.
final class Authenticator: Sendable {
    /// What a login attempt came to.
    enum Outcome: Sendable {
        case authenticated(UserContext)
        /// Wrong name or password.
        case rejected
        /// Too many recent failures for this name or address: try again after this many seconds.
        case throttled(retryAfter: Int)
    }

    private struct Verified: Sendable {
        var derivedKey: String
        var digest: [UInt8]
    }

    private let admin: (name: String, hash: PasswordHash)?
    private let cookies: SessionCookie
    private let sessionTimeout: Int
    private let now: @Sendable () -> Int
    private let lookUpUser: @Sendable (String) async -> JSONObject?
    private let verified = Locked<[String: Verified]>([:])
    /// Checked for names that have no credentials, so that they cost what a real check costs.
    private let decoy: PasswordHash
    private let throttle: LoginThrottle
    /// How many PBKDF2 derivations logins have run (tests read it to see equal work for unknown names).
    let derivations = Locked(0)

    /// - Parameters:
    ///   - lookUpUser: reads `org.couchdb.user:NAME` from `_users`.
    ///   - now: seconds since 1970 (injected so cookie expiry is testable).
    ///   - throttle: the failed-login policy.
    init(
        admin: ServerAdmin?, iterations: Int, secret: [UInt8], sessionTimeout: Int,
        throttle: LoginThrottle = LoginThrottle(policy: LoginThrottlePolicy()),
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
        lookUpUser: @escaping @Sendable (String) async -> JSONObject?
    ) throws {
        self.admin = try admin.map { ($0.name, try PasswordHasher.hash($0.password, iterations: iterations)) }
        decoy = try PasswordHasher.hash(Hex.encode(SecureRandom.bytes(16)), iterations: iterations)
        cookies = SessionCookie(secret: secret)
        self.sessionTimeout = sessionTimeout
        self.throttle = throttle
        self.now = now
        self.lookUpUser = lookUpUser
    }

    /// Whether the server runs without an admin ("admin party": every request acts as a server admin).
    var isAdminParty: Bool { admin == nil }

    /// Checks a login from `address` (the client's IP address, when known), throttling failures.
    func login(name: String, password: String, address: String?) async -> Outcome {
        if let wait = throttle.retryAfter(user: name, address: address) { return .throttled(retryAfter: wait) }
        guard let user = await authenticate(name: name, password: password) else {
            throttle.recordFailure(user: name, address: address)
            return .rejected
        }
        throttle.recordSuccess(user: name)
        return .authenticated(user)
    }

    /// The user `name`/`password` identify, or `nil`. Not throttled: see ``login(name:password:address:)``.
    func authenticate(name: String, password: String) async -> UserContext? {
        guard let (hash, roles) = await credentials(for: name) else {
            // The same derivation a real user's wrong password costs, against a hash nothing matches.
            derivations.withLock { $0 += 1 }
            _ = PasswordHasher.verify(password, against: decoy)
            return nil
        }
        let digest = Array(SHA256.hash(data: Array((hash.salt + "\u{0}" + password).utf8)))
        let cached = verified.withLock { $0[name] }
        if let cached, cached.derivedKey == hash.derivedKey, ConstantTime.equal(cached.digest, digest) {
            return UserContext(name: name, roles: roles)
        }
        derivations.withLock { $0 += 1 }
        guard PasswordHasher.verify(password, against: hash) else { return nil }
        verified.withLock { $0[name] = Verified(derivedKey: hash.derivedKey, digest: digest) }
        return UserContext(name: name, roles: roles)
    }

    /// A fresh `AuthSession` cookie value for `user`.
    func cookie(for user: UserContext) async -> String? {
        guard let name = user.name, let (hash, _) = await credentials(for: name) else { return nil }
        return cookies.make(name: name, salt: hash.salt, time: now())
    }

    /// The user an `AuthSession` cookie value identifies, or `nil` when it is forged, expired or its user's
    /// password has changed.
    func user(fromCookie value: String) async -> UserContext? {
        guard let parsed = SessionCookie.parse(value), now() < parsed.time + sessionTimeout,
            let (hash, roles) = await credentials(for: parsed.name),
            cookies.verify(payload: parsed.payload, mac: parsed.mac, salt: hash.salt)
        else { return nil }
        return UserContext(name: parsed.name, roles: roles)
    }

    /// The `Set-Cookie` header value for a session cookie.
    func setCookieHeader(_ value: String) -> String {
        "AuthSession=\(value); Version=1; Path=/; HttpOnly; Max-Age=\(sessionTimeout)"
    }

    private func credentials(for name: String) async -> (PasswordHash, [String])? {
        if let admin, ConstantTime.equal(Array(admin.name.utf8), Array(name.utf8)) { return (admin.hash, ["_admin"]) }
        guard let document = await lookUpUser(name) else { return nil }
        return UsersDatabase.credentials(in: document)
    }
}
