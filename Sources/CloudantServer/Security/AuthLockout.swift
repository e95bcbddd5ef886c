internal import Foundation

/// CouchDB's authentication lockout (`couch_auth_lockout`): failed logins are counted per client address, user
/// name and the user's salt, each count living `lifetime` from its first failure. In `enforce` mode a login
/// whose count has reached `threshold` is refused with `403 forbidden` before its password is checked, the
/// right one included; `warn` only counts; `off` does neither. A successful login does not reset the count,
/// and a new password (a new salt) starts a new one, as in CouchDB.
///
/// The node configuration's `chttpd_auth_lockout` section sets it (`mode`, `threshold`, `max_lifetime` in
/// milliseconds; CouchDB's defaults `enforce`, 5 and 300 000), read at each login.
final class AuthLockout: Sendable {
    /// The reason of the refusal, CouchDB's words.
    static let reason = "Account is temporarily locked due to multiple authentication failures"
    /// Counts kept at most (CouchDB's `max_objects`); past it the oldest are forgotten first.
    static let trackedLimit = 10_000

    enum Mode: String, Sendable {
        case off, warn, enforce
    }

    struct Settings: Sendable, Equatable {
        var mode: Mode = .enforce
        var threshold = 5
        /// Seconds a count lives from its first failure.
        var lifetime: Double = 300
    }

    private struct Count {
        var first: Double
        var failures: Int
    }

    private let settings: @Sendable () -> Settings
    private let now: @Sendable () -> Double
    private let counts = Locked<[String: Count]>([:])

    /// - Parameter now: seconds on a monotonic clock (injected so tests need not wait).
    init(settings: @escaping @Sendable () -> Settings, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.settings = settings
        self.now = now
    }

    /// Whether a login for `user` (whose stored salt is `salt`, empty for a name nobody has) from `address` is
    /// refused. A request with no known address is never locked out (CouchDB's `nopeer`).
    func isLockedOut(address: String?, user: String, salt: String) -> Bool {
        let settings = settings()
        guard settings.mode == .enforce, let address else { return false }
        let key = Self.key(address, user, salt)
        let time = now()
        return counts.withLock { counts in
            guard let count = counts[key] else { return false }
            guard time - count.first < settings.lifetime else {
                counts[key] = nil
                return false
            }
            return count.failures >= settings.threshold
        }
    }

    /// Counts a failed login.
    func recordFailure(address: String?, user: String, salt: String) {
        let settings = settings()
        guard settings.mode != .off, let address else { return }
        let key = Self.key(address, user, salt)
        let time = now()
        counts.withLock { counts in
            if let count = counts[key], time - count.first < settings.lifetime {
                counts[key]?.failures += 1
            } else {
                counts[key] = Count(first: time, failures: 1)
            }
            if counts.count > Self.trackedLimit {
                for (key, _) in counts.sorted(by: { $0.value.first < $1.value.first }).prefix(counts.count - Self.trackedLimit / 2) {
                    counts[key] = nil
                }
            }
        }
    }

    private static func key(_ address: String, _ user: String, _ salt: String) -> String {
        address + "\u{0}" + user + "\u{0}" + salt
    }
}
