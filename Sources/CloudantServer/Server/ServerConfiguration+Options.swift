/// The `SameSite` attribute of the `AuthSession` cookie: whether browsers send it on requests other sites
/// start.
public enum CookieSameSite: String, Sendable, CaseIterable {
    /// Only requests this server's own pages start.
    case strict = "Strict"
    /// Also top-level navigations from other sites (the default: links into a dashboard keep the session).
    case lax = "Lax"
    /// Every request; browsers accept it only with `Secure`, so use it behind TLS.
    case none = "None"
}

/// The certificate and private key `cloudant serve` presents over TLS (HTTPS), as PEM files.
public struct ServerTLS: Sendable, Hashable {
    /// The certificate chain, leaf first (PEM).
    public var certificatePath: String
    /// The certificate's private key (PEM).
    public var privateKeyPath: String

    /// Names the two PEM files.
    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

/// CouchDB's `[couch_peruser]`: a private database for every user of `_users`.
///
/// Creating (or replicating in) `org.couchdb.user:NAME` creates `PREFIX + hex(NAME)` (the UTF-8 bytes of
/// the name in lowercase hex, so any name makes a valid database name), whose `_security` names the user
/// as its admin and its only member.
public struct PerUserDatabases: Sendable, Hashable {
    /// The database name prefix (CouchDB's `database_prefix`, default `userdb-`).
    public var prefix: String
    /// Whether deleting the user deletes the database (CouchDB's `delete_dbs`); otherwise the database is
    /// kept and the user is removed from its `_security`.
    public var deleteWithUser: Bool

    /// CouchDB's defaults: `userdb-`, databases kept.
    public init(prefix: String = "userdb-", deleteWithUser: Bool = false) {
        self.prefix = prefix
        self.deleteWithUser = deleteWithUser
    }

    /// The database of user `name`.
    public func databaseName(forUser name: String) -> String {
        prefix + name.utf8.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

/// Where the audit trail is kept and for how long.
public struct AuditSettings: Sendable, Hashable {
    /// The folder of the log; `nil` is `_audit` in the data folder.
    public var folder: String?
    /// Days entries are kept (whole days are removed); `nil` keeps everything.
    public var retentionDays: Int?

    /// Audit into `folder` (default `<data>/_audit`), keeping `retentionDays` days.
    public init(folder: String? = nil, retentionDays: Int? = nil) {
        self.folder = folder
        self.retentionDays = retentionDays
    }
}

/// How the server's replication jobs retry, as CouchDB's `[replicator]` section: each request is retried
/// `retriesPerRequest` times (from 0.25 s, doubling); a job whose request still fails has crashed, and a job from a
/// `_replicator` document starts again after `backoffInterval` × 2^(crashes in a row − 1), the exponent capped at
/// 10; a job that ran `healthThreshold` without crashing starts its count again.
public struct ReplicatorSettings: Sendable, Hashable {
    /// Retries of one request before the job crashes (`retries_per_request`, default 5).
    public var retriesPerRequest: Int
    /// The wait after a first crash (30 s in `couch_replicator_scheduler`).
    public var backoffInterval: Duration
    /// How long a job runs before its crash count starts again (`health_threshold`, 120 s).
    public var healthThreshold: Duration
    /// How long one request to a remote endpoint may take before it counts as failed (`connection_timeout`,
    /// 30 s); a replication's own `connection_timeout` overrides it.
    public var connectionTimeout: Duration

    /// CouchDB's defaults.
    public init(
        retriesPerRequest: Int = 5, backoffInterval: Duration = .seconds(30), healthThreshold: Duration = .seconds(120),
        connectionTimeout: Duration = .seconds(30)
    ) {
        self.retriesPerRequest = max(0, retriesPerRequest)
        self.backoffInterval = backoffInterval
        self.healthThreshold = healthThreshold
        self.connectionTimeout = connectionTimeout
    }

    /// The wait before a job that crashed `crashes` times in a row starts again.
    public func backoff(afterCrashes crashes: Int) -> Duration {
        backoffInterval * (1 << min(max(crashes, 1) - 1, 10))
    }
}
