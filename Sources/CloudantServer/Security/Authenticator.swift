internal import CloudantCore
internal import Crypto
internal import Foundation

/// Checks credentials: the server admin given at start, the admins of the node configuration's `admins`
/// section (``AdminPasswords``), and the users of `_users`, by HTTP basic auth or an `AuthSession` cookie; an
/// admin is found before a user document of the same name, as CouchDB's `couch_auth_cache:get_user_creds`.
///
/// A successful PBKDF2 check is remembered (as a SHA-256 of salt and password, never the password), so
/// basic auth on every request does not pay the full key derivation each time; the entry is used only
/// while the stored hash is unchanged.
///
/// A name nobody has costs the same key derivation as a wrong password for a real user (against a decoy
/// hash of random bytes with the configured iterations), so the answer's timing does not tell which
/// names exist. Failed logins are throttled by ``LoginThrottle``.
///
/// The work of a login is the server's to choose: derivations run on ``PasswordHashingPool``'s threads, never
/// on the cooperative pool, within its queue bounds; and a stored hash whose iterations fall outside
/// ``allowedIterations`` (or whose PRF CouchDB does not know) is refused without being computed, as CouchDB's
/// `min_iterations`/`max_iterations` refuse it. Users cannot set those parameters in their own documents (see
/// ``UsersDatabase/pinningHash(of:current:)``).
final class Authenticator: Sendable {
    /// What a login attempt came to.
    enum Outcome: Sendable {
        case authenticated(UserContext)
        /// Wrong name or password.
        case rejected
        /// Too many recent failures for this name or address: try again after this many seconds.
        case throttled(retryAfter: Int)
        /// Locked out by CouchDB's rule (``AuthLockout``): `403 forbidden`.
        case lockedOut
        /// The user's document has conflicts (``conflictedUserReason``).
        case conflicted
        /// The stored hash is not one this server computes (CouchDB's `403 forbidden` reason).
        case refused(String)
        /// The hashing queue is full for this client or for the server.
        case busy(PasswordHashingPool.Refusal)
    }

    /// What checking a name and password found.
    enum Verdict: Sendable {
        case user(UserContext)
        case wrong
        case refused(String)
    }

    private struct Verified: Sendable {
        var derivedKey: String
        var digest: [UInt8]
    }

    private let admin: (name: String, hash: PasswordHash)?
    private let cookies: SessionCookie
    /// Seconds a session lasts unused; the node configuration's `chttpd_auth/timeout` changes it at once.
    private let timeout: Locked<Int>
    private var sessionTimeout: Int { timeout.withLock { $0 } }
    private let now: @Sendable () -> Int
    private let lookUpUser: @Sendable (String) async -> JSONObject?
    /// The roles of admins' user documents, kept ``adminRolesLifetime`` (or until ``forgetAdminRoles()``), so an
    /// admin's request does not read the authentication database each time, as CouchDB's auth cache keeps them.
    private let adminRoles = Locked<[String: (roles: [String], expires: ContinuousClock.Instant)]>([:])
    /// How long an admin's document roles are kept when no write to the authentication database forgets them.
    static let adminRolesLifetime = Duration.seconds(5)
    private let configuredAdmins: @Sendable () -> [String: String]
    private let allowsConflictedUsers: @Sendable () -> Bool

    /// Why a user whose document has conflicts cannot log in (`401`, CouchDB's words), unless the node
    /// configuration's `chttpd_auth/allow_conflicted_user_docs` is `true`.
    static let conflictedUserReason =
        "User document conflicts must be resolved before the document is used for authentication purposes."

    private let verified = Locked<[String: Verified]>([:])
    /// Checked for names that have no credentials, so that they cost what a real check costs.
    private let decoy: PasswordHash
    private let throttle: LoginThrottle
    private let lockout: AuthLockout
    private let cookiePolicy: CookiePolicy
    /// The sessions cookies name (listed and revoked through `/_session/all`).
    let sessions: SessionRegistry
    /// How many PBKDF2 derivations logins have run (tests read it to see equal work for unknown names).
    let derivations = Locked(0)
    /// Where derivations run.
    let hashing: PasswordHashingPool
    /// The iterations a stored hash may have for a login to compute it.
    let allowedIterations: ClosedRange<Int>
    /// Brings a user document's hash to the server's parameters after a password login (nil: never).
    let hashUpgrade: PasswordHashUpgrade?

    /// - Parameters:
    ///   - configuredAdmins: the node configuration's `admins` section, read at each login.
    ///   - allowsConflictedUsers: whether a user document with conflicts still logs in.
    ///   - lookUpUser: reads `org.couchdb.user:NAME` from the authentication database, with `_conflicts`.
    ///   - now: seconds since 1970 (injected so cookie expiry is testable).
    ///   - cookiePolicy: the cookie's attributes and the sessions' absolute lifetime.
    ///   - sessions: where cookie sessions are recorded.
    ///   - throttle: the failed-login policy.
    ///   - hashUpgrade: told of each password login by a user document.
    init(
        admin: ServerAdmin?, iterations: Int, secret: [UInt8], sessionTimeout: Int,
        cookiePolicy: CookiePolicy = CookiePolicy(), sessions: SessionRegistry,
        throttle: LoginThrottle = LoginThrottle(policy: LoginThrottlePolicy()),
        lockout: AuthLockout = AuthLockout(settings: { AuthLockout.Settings() }),
        hashing: PasswordHashingPool = PasswordHashingPool(), maxIterations: Int = 1_000_000,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
        configuredAdmins: @escaping @Sendable () -> [String: String] = { [:] },
        allowsConflictedUsers: @escaping @Sendable () -> Bool = { false },
        hashUpgrade: PasswordHashUpgrade? = nil,
        lookUpUser: @escaping @Sendable (String) async -> JSONObject?
    ) throws {
        self.hashing = hashing
        self.hashUpgrade = hashUpgrade
        allowedIterations = 1...max(1, maxIterations, iterations)
        self.admin = try admin.map { ($0.name, try PasswordHasher.hash($0.password, iterations: iterations)) }
        // Random salt and key: checking any password against it runs one full derivation, as a real hash
        // would, and never matches; making it needs no derivation (one less at every start-up).
        decoy = PasswordHash(
            salt: Hex.encode(SecureRandom.bytes(16)), derivedKey: Hex.encode(SecureRandom.bytes(32)),
            iterations: iterations, prf: "sha256")
        cookies = SessionCookie(secret: secret)
        timeout = Locked(sessionTimeout)
        self.cookiePolicy = cookiePolicy
        self.sessions = sessions
        self.throttle = throttle
        self.lockout = lockout
        self.now = now
        self.lookUpUser = lookUpUser
        self.configuredAdmins = configuredAdmins
        self.allowsConflictedUsers = allowsConflictedUsers
    }

    /// Changes how long sessions last unused, for cookies checked from now on.
    func setSessionTimeout(_ seconds: Int) { timeout.withLock { $0 = seconds } }

    /// Whether the server runs without an admin ("admin party": every request acts as a server admin). It
    /// ends when an admin is set in the configuration, as CouchDB's does.
    var isAdminParty: Bool { admin == nil && configuredAdmins().isEmpty }

    /// The start-up admin's name and hash, shown in the configuration's `admins` section.
    var startupAdmin: (name: String, hash: PasswordHash)? { admin }

    /// Checks a login from `address` (the client's IP address, when known): refused by CouchDB's lockout
    /// (``AuthLockout``) or by the throttle before the password is checked; failures are counted by both.
    /// The throttle counts a user name with its salt, as the lockout does, so a new password starts afresh.
    /// - Throws: `CancellationError` when the request went away while its derivation waited.
    ///
    /// With `locksOutUnknownNames` false (basic auth), a name nobody has is refused without the lockout counting
    /// or refusing it, as CouchDB's `default_authentication_handler/2` refuses it before `authenticate/5`; the
    /// throttle still counts it.
    func login(name: String, password: String, address: String?, locksOutUnknownNames: Bool = true) async throws -> Outcome {
        let document = await userDocument(name)
        if let conflicts = document?["_conflicts"]?.arrayValue, !conflicts.isEmpty, !allowsConflictedUsers() {
            return .conflicted
        }
        let found = await withAdminRoles(credentials(for: name, document: document), of: name)
        let salt = found?.hash.salt ?? ""
        let locksOut = found != nil || locksOutUnknownNames
        if locksOut, lockout.isLockedOut(address: address, user: name, salt: salt) { return .lockedOut }
        let account = name + "\u{0}" + salt
        if let wait = throttle.retryAfter(user: account, address: address) { return .throttled(retryAfter: wait) }
        let verdict: Verdict
        do {
            verdict = try await verify(name: name, password: password, address: address, found: found)
        } catch let refusal as PasswordHashingPool.Refusal {
            return .busy(refusal)
        }
        switch verdict {
        case .user(let user):
            throttle.recordSuccess(user: account)
            if let document { hashUpgrade?.consider(name: name, password: password, document: document) }
            return .authenticated(user)
        case .wrong:
            throttle.recordFailure(user: account, address: address)
            if locksOut { lockout.recordFailure(address: address, user: name, salt: salt) }
            return .rejected
        case .refused(let reason):
            return .refused(reason)
        }
    }

    /// Checks `password` against `found`, the credentials `name` has (nil: none); the derivation, when one is
    /// needed, runs on ``hashing`` under `address`'s share.
    /// - Throws: ``PasswordHashingPool/Refusal`` when the queue is full; `CancellationError`.
    private func verify(
        name: String, password: String, address: String?, found: (hash: PasswordHash, roles: [String])?
    ) async throws -> Verdict {
        guard let (hash, roles) = found else {
            // The same derivation a real user's wrong password costs, against a hash nothing matches.
            let decoy = decoy
            _ = try await hashing.run(client: address) { PasswordHasher.verify(password, against: decoy) }
            derivations.withLock { $0 += 1 }
            return .wrong
        }
        let digest = Array(SHA256.hash(data: Array((hash.salt + "\u{0}" + password).utf8)))
        let cached = verified.withLock { $0[name] }
        if let cached, cached.derivedKey == hash.derivedKey, ConstantTime.equal(cached.digest, digest) {
            return .user(UserContext(name: name, roles: roles))
        }
        if let reason = PasswordHasher.refusal(of: hash, allowed: allowedIterations) { return .refused(reason) }
        guard try await hashing.run(client: address, { PasswordHasher.verify(password, against: hash) }) else {
            derivations.withLock { $0 += 1 }
            return .wrong
        }
        derivations.withLock { $0 += 1 }
        verified.withLock { $0[name] = Verified(derivedKey: hash.derivedKey, digest: digest) }
        return .user(UserContext(name: name, roles: roles))
    }

    /// A new session for `user`, and its `AuthSession` cookie value.
    func startSession(for user: UserContext, address: String?, userAgent: String?) async -> (
        cookie: String, session: SessionRegistry.Session
    )? {
        guard let name = user.name, let (hash, _) = await credentials(for: name) else { return nil }
        let token = Hex.encode(SecureRandom.bytes(32))
        let time = now()
        let session = await sessions.create(
            token: token, name: name, salt: hash.salt, now: time, address: address, userAgent: userAgent)
        return (cookies.make(name: name, token: token, salt: hash.salt, time: time), session)
    }

    /// What a valid `AuthSession` cookie comes to.
    struct CookieSession: Sendable {
        var user: UserContext
        var session: SessionRegistry.Session
        /// A re-issued cookie value when a tenth of the timeout has passed since this one was issued (as
        /// CouchDB does), so a session in use does not expire.
        var refreshed: String?
    }

    /// The session an `AuthSession` cookie value belongs to, or `nil` when the cookie is forged or expired,
    /// its session was revoked or has outlived ``ServerConfiguration/sessionMaxLifetime``, or its user's
    /// password has changed.
    func session(fromCookie value: String) async -> CookieSession? {
        let time = now()
        guard let parsed = SessionCookie.parse(value), time < parsed.time + sessionTimeout,
            let (hash, roles) = await credentials(for: parsed.name),
            cookies.verify(payload: parsed.payload, mac: parsed.mac, salt: hash.salt),
            let session = sessions.touch(token: parsed.token, now: time), session.name == parsed.name,
            session.salt == hash.salt, isWithinLifetime(session, at: time)
        else { return nil }
        let refreshed =
            time - parsed.time > sessionTimeout / 10
            ? cookies.make(name: parsed.name, token: parsed.token, salt: hash.salt, time: time) : nil
        // A re-issued cookie outlives the stored `lastSeen`: store it too, or a restart would drop the session as
        // idle while its client still holds a valid cookie. (At most one write per session per tenth of the timeout.)
        if refreshed != nil { await sessions.saveLastSeen() }
        return CookieSession(user: UserContext(name: parsed.name, roles: roles), session: session, refreshed: refreshed)
    }

    /// Whether `session` is within its absolute lifetime at `time`.
    func isWithinLifetime(_ session: SessionRegistry.Session, at time: Int) -> Bool {
        guard let maxLifetime = cookiePolicy.maxLifetime else { return true }
        return time < session.created + maxLifetime
    }

    /// Whether a stored session can still authenticate anything: not idle past the timeout nor past its
    /// lifetime (expired ones are dropped when the registry loads).
    func isLive(_ session: SessionRegistry.Session) -> Bool {
        let time = now()
        return time < session.lastSeen + sessionTimeout && isWithinLifetime(session, at: time)
    }

    /// The `Set-Cookie` header value for a session cookie, with the attributes in the order mochiweb writes
    /// CouchDB's (`mochiweb_cookies:cookie/3`): `Version`, `Expires`, `Max-Age`, `Path`, then ``CookiePolicy``'s.
    func setCookieHeader(_ value: String) -> String {
        let timeout = sessionTimeout
        return "AuthSession=\(value); Version=1; Expires=\(HTTPDate.string(now() + timeout)); Max-Age=\(timeout); Path=/"
            + cookiePolicy.attributes
    }

    /// The `Set-Cookie` header value that ends the session cookie: empty, with the same attributes, as
    /// `couch_httpd_auth:clear_auth_cookie/1` writes it (an empty `AuthSession` is no session).
    var clearCookieHeader: String { setCookieHeader("") }

    private func credentials(for name: String) async -> (hash: PasswordHash, roles: [String])? {
        await withAdminRoles(credentials(for: name, document: await userDocument(name)), of: name)
    }

    /// An admin's credentials with the roles of their user document added after `_admin`, when they have one
    /// (`chttpd_auth_cache:get_user_creds/2` adds them with `couch_auth_cache:add_roles/2`); others' as given.
    private func withAdminRoles(
        _ found: (hash: PasswordHash, roles: [String])?, of name: String
    ) async -> (hash: PasswordHash, roles: [String])? {
        guard var found, found.roles == ["_admin"], isAdmin(name) else { return found }
        let now = ContinuousClock.now
        if let kept = adminRoles.withLock({ $0[name] }), kept.expires > now {
            found.roles += kept.roles
            return found
        }
        let roles = (await lookUpUser(name)?["roles"]?.arrayValue ?? []).compactMap(\.stringValue)
        adminRoles.withLock { $0[name] = (roles, now + Self.adminRolesLifetime) }
        found.roles += roles
        return found
    }

    /// Forgets the admins' document roles kept: the authentication database was written to.
    func forgetAdminRoles() { adminRoles.withLock { $0.removeAll() } }

    /// Whether `name` is the start-up admin or one the configuration names.
    private func isAdmin(_ name: String) -> Bool {
        if let admin, ConstantTime.equal(Array(admin.name.utf8), Array(name.utf8)) { return true }
        return configuredAdmins()[name] != nil
    }

    /// The user document of `name`, unless `name` is an admin (whose credentials come first).
    private func userDocument(_ name: String) async -> JSONObject? {
        isAdmin(name) ? nil : await lookUpUser(name)
    }

    /// The credentials of `name`: an admin's, or those in `document`, its user document.
    private func credentials(for name: String, document: JSONObject?) -> (hash: PasswordHash, roles: [String])? {
        if let admin, ConstantTime.equal(Array(admin.name.utf8), Array(name.utf8)) { return (admin.hash, ["_admin"]) }
        if let value = configuredAdmins()[name] {
            // An admin whose value holds no hash this server checks cannot log in, and is not looked up as a user.
            guard let hash = AdminPasswords.hash(in: value) else { return nil }
            return (hash, ["_admin"])
        }
        if let conflicts = document?["_conflicts"]?.arrayValue, !conflicts.isEmpty, !allowsConflictedUsers() { return nil }
        return document.flatMap(UsersDatabase.credentials(in:))
    }
}
