internal import Foundation

/// How a server throttles failed logins (HTTP basic auth and `POST /_session`), per user name and per
/// client address.
///
/// Each failed login is remembered for ``window`` seconds. While a user name has ``maxFailuresPerUser``
/// failures in the window, or a client address has ``maxFailuresPerAddress``, a login for that name or
/// from that address is refused with `429 too_many_requests` and a `Retry-After` header, *before* the
/// password is checked — the right password included, or guessing would simply continue. A successful
/// login clears its user name's failures (not its address's, so a second account cannot reset them). A user
/// name is counted with its current salt, so a new password starts afresh, as CouchDB's lockout counts it.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.loginThrottle = LoginThrottlePolicy(maxFailuresPerUser: 10, maxFailuresPerAddress: 50, window: 300)
/// ```
///
/// CouchDB's own lockout (`chttpd_auth_lockout`, per address and user name) is checked first and answers as
/// CouchDB does; this throttle adds the limits CouchDB lacks (one name from any address, one address for any
/// name): a deliberate difference, listed in the README.
public struct LoginThrottlePolicy: Sendable, Hashable {
    /// Failed logins one user name may have in the window before its logins are refused. Default 5.
    public var maxFailuresPerUser: Int
    /// Failed logins one client address may have in the window before its logins are refused. Default 20.
    public var maxFailuresPerAddress: Int
    /// Seconds a failed login counts. Default 60.
    public var window: Int

    /// Creates a policy; values below 1 are treated as 1.
    public init(maxFailuresPerUser: Int = 5, maxFailuresPerAddress: Int = 20, window: Int = 60) {
        self.maxFailuresPerUser = max(1, maxFailuresPerUser)
        self.maxFailuresPerAddress = max(1, maxFailuresPerAddress)
        self.window = max(1, window)
    }
}

/// The failed logins of the last window, by user name and by client address (``LoginThrottlePolicy``).
///
/// Memory is bounded: at most ``trackedKeysLimit`` names and addresses are remembered; past it the
/// stalest are forgotten first.
final class LoginThrottle: Sendable {
    static let trackedKeysLimit = 10_000

    private let policy: LoginThrottlePolicy
    private let now: @Sendable () -> Double
    /// Failure times (seconds on `now`'s clock), oldest first, by key (`u:NAME`, `a:ADDRESS`).
    private let failures = Locked<[String: [Double]]>([:])

    /// - Parameter now: seconds on a monotonic clock (injected so tests need not wait).
    init(policy: LoginThrottlePolicy, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.policy = policy
        self.now = now
    }

    /// Seconds until a login for `user` from `address` may be tried again, or `nil` when it may now.
    func retryAfter(user: String, address: String?) -> Int? {
        let time = now()
        return failures.withLock { table in
            var wait: Double?
            for (key, limit) in keys(user: user, address: address) {
                let recent = Self.recent(table[key] ?? [], at: time, window: policy.window)
                table[key] = recent.isEmpty ? nil : recent
                guard recent.count >= limit else { continue }
                // Allowed again once enough of the failures have aged out of the window.
                let until = recent[recent.count - limit] + Double(policy.window) - time
                wait = max(wait ?? 0, until)
            }
            return wait.map { max(1, Int($0.rounded(.up))) }
        }
    }

    /// Counts a failed login against `user` and `address`.
    func recordFailure(user: String, address: String?) {
        let time = now()
        failures.withLock { table in
            for (key, limit) in keys(user: user, address: address) {
                var recent = Self.recent(table[key] ?? [], at: time, window: policy.window)
                recent.append(time)
                table[key] = Array(recent.suffix(limit))
            }
            if table.count > Self.trackedKeysLimit { Self.forgetStalest(in: &table) }
        }
    }

    /// How many names and addresses are remembered.
    var trackedKeys: Int { failures.withLock { $0.count } }

    /// Clears `user`'s failures after a successful login.
    func recordSuccess(user: String) {
        _ = failures.withLock { $0.removeValue(forKey: "u:" + user) }
    }

    private func keys(user: String, address: String?) -> [(String, Int)] {
        var keys = [("u:" + user, policy.maxFailuresPerUser)]
        if let address { keys.append(("a:" + address, policy.maxFailuresPerAddress)) }
        return keys
    }

    private static func recent(_ times: [Double], at time: Double, window: Int) -> [Double] {
        guard let first = times.firstIndex(where: { time - $0 < Double(window) }) else { return [] }
        return Array(times[first...])
    }

    private static func forgetStalest(in table: inout [String: [Double]]) {
        let byLastFailure = table.sorted { ($0.value.last ?? 0) < ($1.value.last ?? 0) }
        for (key, _) in byLastFailure.prefix(table.count - trackedKeysLimit / 2) { table.removeValue(forKey: key) }
    }
}
