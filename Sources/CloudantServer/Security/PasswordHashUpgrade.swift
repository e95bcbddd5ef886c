internal import CloudantCore
internal import Foundation

/// Brings a user's stored password hash up to the server's parameters after they log in with their password,
/// as CouchDB 3.5's `couch_password_hasher:maybe_upgrade_password_hash` does (`chttpd_auth/upgrade_hash_on_auth`,
/// true unless set to false): when the user document's scheme, PRF or iterations differ from
/// `chttpd_auth/pbkdf2_prf` and `chttpd_auth/iterations`, the password just checked is hashed again with them,
/// keeping the document's salt (so the user's sessions stay valid), and written over the revision that was
/// checked, in the background. A document changed meanwhile keeps its change: the write's conflict ends the
/// upgrade, and the next login tries again.
///
/// Basic auth and `POST /_session` logins lead here; a session cookie does not (it carries no password). An
/// upgrade asked for while a request is answered starts once its answer is made (``Deferral``), so the
/// request's own write goes first: a user changing their password keeps the new one and its new salt, as
/// CouchDB's asynchronous hasher, queued behind the request, lets them.
final class PasswordHashUpgrade: Sendable {
    /// The upgrades a request's login asked for, started when its answer is made.
    final class Deferral: Sendable {
        private let pending = Locked<[@Sendable () -> Void]>([])

        init() {}

        fileprivate func add(_ start: @escaping @Sendable () -> Void) { pending.withLock { $0.append(start) } }

        /// Starts the upgrades asked for.
        func startPending() {
            for start in pending.withLock({ pending in defer { pending.removeAll() }; return pending }) { start() }
        }
    }

    /// The deferral of the request being answered, if any.
    @TaskLocal static var deferral: Deferral?

    /// What an upgrade needs from the server, read at each login.
    struct Settings: Sendable {
        var enabled: Bool
        var password: UsersDatabase.PasswordSettings
    }

    private let settings: @Sendable () -> Settings
    /// Writes the upgraded document into the authentication database.
    private let write: @Sendable (JSONObject) async throws -> Void
    private let hashing: PasswordHashingPool
    /// Names whose upgrade is waiting, running (its task, for ``finished()``) or ended less than
    /// ``holdAfterUpgrade`` ago: a burst of requests upgrades once, and the logins just after an upgrade start
    /// none (CouchDB keeps a name in its `couch_password_hasher_in_progress` table five seconds after its
    /// upgrade is done). Ended holds are dropped when a new one is taken, so the table holds the names of the
    /// last few seconds, not every user who ever logged in.
    private let held = Locked<[String: Hold]>([:])
    private enum Hold {
        case waiting
        case running(Task<Void, Never>)
        case until(ContinuousClock.Instant)
    }
    /// How long a name stays held after its upgrade ends (CouchDB's five seconds).
    private let holdAfterUpgrade: Duration

    init(
        settings: @escaping @Sendable () -> Settings, hashing: PasswordHashingPool,
        holdAfterUpgrade: Duration = .seconds(5), write: @escaping @Sendable (JSONObject) async throws -> Void
    ) {
        self.settings = settings
        self.hashing = hashing
        self.holdAfterUpgrade = holdAfterUpgrade
        self.write = write
    }

    /// How many names are held (waiting, running or recently upgraded).
    var heldNameCount: Int { held.withLock { $0.count } }

    /// Starts an upgrade of `document`, `name`'s user document whose hash `password` just matched, when it needs
    /// one and none is under way for `name`.
    func consider(name: String, password: String, document: JSONObject) {
        let settings = settings()
        guard settings.enabled, document["_rev"] != nil, Self.needsUpgrade(document, to: settings.password) else { return }
        let now = ContinuousClock.now
        let taken = held.withLock { held -> Bool in
            switch held[name] {
            case .waiting?, .running?: return false
            case .until(let end)? where end > now: return false
            default:
                held = held.filter { _, hold in
                    if case .until(let end) = hold { end > now } else { true }
                }
                held[name] = .waiting
                return true
            }
        }
        guard taken else { return }
        var request = document
        request["password"] = .string(password)
        request["preserve_salt"] = true
        request["_conflicts"] = nil
        let start: @Sendable () -> Void = { [request] in self.start(request, name: name, settings: settings.password) }
        if let deferral = Self.deferral { deferral.add(start) } else { start() }
    }

    private func start(_ request: JSONObject, name: String, settings: UsersDatabase.PasswordSettings) {
        // Recorded under the lock it takes when it ends, so its end is recorded after its start.
        held.withLock { held in
            held[name] = .running(Task { [hashing, write, holdAfterUpgrade] in
                defer { self.held.withLock { $0[name] = .until(ContinuousClock.now + holdAfterUpgrade) } }
                // A refusal (queue full), a conflict or a deleted database: the next login tries again.
                guard
                    let upgraded = try? await UsersDatabase.prepare(
                        request, settings: settings, validatesNatively: false, hashing: hashing, client: nil)
                else { return }
                try? await write(upgraded)
            })
        }
    }

    /// Waits for the upgrades under way (a stopping server lets them finish before its stores close).
    func finished() async {
        let tasks = held.withLock { held in held.values.compactMap { if case .running(let task) = $0 { task } else { nil } } }
        for task in tasks { await task.value }
    }

    /// Whether `document`'s hash differs from what `settings` would write (`couch_password_hasher:needs_upgrade`):
    /// any scheme but PBKDF2, another PRF (a missing one is CouchDB 2's `sha`), or other iterations.
    static func needsUpgrade(_ document: JSONObject, to settings: UsersDatabase.PasswordSettings) -> Bool {
        guard document["password_scheme"]?.stringValue == "pbkdf2" else { return true }
        return document["pbkdf2_prf"]?.stringValue != settings.prf
            || document["iterations"]?.numberValue?.int64Value != Int64(settings.iterations)
    }
}
