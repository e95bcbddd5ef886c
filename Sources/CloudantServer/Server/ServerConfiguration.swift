public import CloudantCore
public import CloudantStore

/// How a ``CouchServer`` listens, who may use it and how much it accepts.
///
/// ```swift
/// let configuration = ServerConfiguration(
///     host: "127.0.0.1", port: 5984, directory: StoreDirectory(path: "cloudant-data"),
///     admin: ServerAdmin(name: "admin", password: "secret"))
/// ```
public struct ServerConfiguration: Sendable {
    /// The address to bind: `127.0.0.1` (the default) keeps the server on this machine.
    public var host: String
    /// The TCP port; `0` picks a free port, which ``CouchServer/port()`` then reports.
    public var port: Int
    /// The folder whose stores the server serves, one database per SQLite file.
    public var directory: StoreDirectory
    /// The server admin. Without one the server runs in "admin party" mode, which it allows only on a
    /// loopback address (see `CloudantError.Code.adminRequired`).
    public var admin: ServerAdmin?
    /// The largest request body accepted, in bytes; a larger one is answered `413 too_large`.
    public var maxRequestBodySize: Int
    /// The largest request body accepted from a client that has not logged in (a login, the dashboard's login
    /// form), in bytes; a larger one is answered `413 too_large` before it is read. Default 64 KiB.
    public var maxAnonymousBodySize = 64 * 1024
    /// The bytes all request bodies from clients that have not logged in may hold while they are read; past it
    /// such a request is answered `503 service_unavailable`, so connections that never log in cannot fill the
    /// server's memory. Default 4 MiB.
    public var anonymousBodyBudget = 4 * 1024 * 1024
    /// The longest attachment accepted by an attachment `PUT`, in bytes (CouchDB's `max_attachment_size`);
    /// a longer one is answered `413 attachment_too_large`. Such uploads stream to disk rather than
    /// being held in memory, so ``maxRequestBodySize`` does not apply to them. Default 1 GiB.
    public var maxAttachmentSize: Int = 1 << 30
    /// The key every store the server opens is encrypted with (`StoreOptions.encryptionKey`);
    /// nil serves plaintext stores. A store the key does not open is answered as an error, never read.
    public var encryptionKey: DatabaseKey? = nil
    /// How long an `AuthSession` cookie stays valid, in seconds (CouchDB's `[chttpd_auth] timeout`).
    public var sessionTimeout: Int
    /// The longest a session lasts from its login, in seconds, however much it is used; `nil` (the default)
    /// lets a session in use live on, each cookie re-issued within ``sessionTimeout``.
    public var sessionMaxLifetime: Int? = nil
    /// The session cookie's `SameSite` attribute. Default `.lax`.
    public var cookieSameSite: CookieSameSite = .lax
    /// Whether the session cookie is marked `Secure`; `nil` (the default) marks it when ``tls`` is set.
    public var secureCookies: Bool? = nil
    /// The certificate and key to serve HTTPS with; `nil` serves plain HTTP.
    public var tls: ServerTLS? = nil
    /// A private database per user, as CouchDB's `couch_peruser`; `nil` (the default) creates none.
    public var perUserDatabases: PerUserDatabases? = nil
    /// The audit trail of who read, wrote, deleted, replicated or was refused what; `nil` (the default)
    /// keeps none.
    public var audit: AuditSettings? = nil
    /// PBKDF2 iterations for new `_users` password hashes (CouchDB 3.5's default is 600 000).
    public var passwordIterations: Int
    /// The most PBKDF2 iterations a stored user document may have for a login to compute it (CouchDB's
    /// `[chttpd_auth] max_iterations`); a document with more is refused with `403 forbidden` without being
    /// computed. At least ``passwordIterations``. Default 1 000 000 (CouchDB's default is 10⁹; a login here
    /// must stay a bounded piece of work, and users cannot set their own iterations).
    public var maxPasswordIterations: Int = 1_000_000
    /// The server's stable identity (`GET /` `uuid`); `nil` reads or creates one in the data folder.
    public var uuid: String?
    /// The name of the server's one node in `/_membership`, `/_node/{node}/…` and replication jobs: a single
    /// CouchDB node's default, `nonode@nohost`, unless set (CouchDB takes it from `-name` in `vm.args`;
    /// its development cluster names its first node `node1@127.0.0.1`). `/_node/_local` names it too.
    public var nodeName = "nonode@nohost"
    /// How many regular-expression engine steps one `$regex` evaluation may take in `_find` and
    /// `_changes?filter=_selector`; past it the request is answered `400 bad_arg`. Default 10 000 000
    /// (PCRE's default match limit, which CouchDB's own `$regex` runs under); a value above
    /// `MatchLimits.maximumRegexStepLimit` counts as that maximum.
    public var regexStepLimit: Int
    /// The longest a `longpoll` or `continuous` `_changes` feed waits, in milliseconds: a larger `timeout`
    /// or `heartbeat` is cut to it, as CouchDB's `[chttpd] changes_timeout` (default 60 000).
    public var changesTimeout: Int
    /// Seconds a keep-alive connection may stay idle (no request in progress) before the server closes it.
    /// Default 300, mochiweb's idle timeout in CouchDB. `nil` never closes idle connections.
    public var idleTimeout: Int?
    /// Seconds a graceful shutdown (SIGTERM) lets requests in progress finish; then they are cancelled and
    /// their connections closed. Default 10.
    public var shutdownGracePeriod: Int
    /// How failed logins are throttled, per user name and per client address.
    public var loginThrottle: LoginThrottlePolicy
    /// The most leaves (the winner and its conflicts, deleted ones included) a document's revision tree may
    /// have; a replicated revision that would add one more is refused on its own, `too_large` in the
    /// `_bulk_docs` answer (`StoreOptions.maxLeavesPerDocument`; CouchDB has no such bound).
    /// Default 1 000.
    public var maxLeavesPerDocument = StoreOptions.defaultMaxLeavesPerDocument
    /// Whether the web dashboard answers at `/_utils` (default `true`); when `false` those paths are `404`.
    public var dashboardEnabled = true
    /// Pages modules add to the dashboard for each database (a health chart, a care calendar).
    public var dashboardPanels: [any DashboardPanel] = []
    /// What runs design documents' functions (views, validation, filters, shows, lists, updates, rewrites):
    /// `JavaScriptEngine` from the `CloudantJavaScript` product; nil, the default, serves design documents
    /// without running them (their views answer `501 not_implemented`).
    public var designFunctions: (any DesignFunctionRuntime)? = nil
    /// How replication jobs (`/_replicate`, `_replicator` documents) retry: CouchDB's `[replicator]` defaults.
    public var replicator = ReplicatorSettings()

    /// Creates a configuration with CouchDB's defaults where CouchDB has one.
    public init(
        host: String = "127.0.0.1", port: Int = 5984, directory: StoreDirectory = StoreDirectory(),
        admin: ServerAdmin? = nil, maxRequestBodySize: Int = 64 * 1024 * 1024, sessionTimeout: Int = 600,
        passwordIterations: Int = 600_000, uuid: String? = nil,
        regexStepLimit: Int = MatchLimits.defaultRegexStepLimit, changesTimeout: Int = 60_000, idleTimeout: Int? = 300,
        shutdownGracePeriod: Int = 10, loginThrottle: LoginThrottlePolicy = LoginThrottlePolicy()
    ) {
        self.host = host
        self.port = port
        self.directory = directory
        self.admin = admin
        self.maxRequestBodySize = maxRequestBodySize
        self.sessionTimeout = sessionTimeout
        self.passwordIterations = passwordIterations
        self.uuid = uuid
        self.regexStepLimit = regexStepLimit
        self.changesTimeout = changesTimeout
        self.idleTimeout = idleTimeout
        self.shutdownGracePeriod = shutdownGracePeriod
        self.loginThrottle = loginThrottle
    }

    /// Whether ``host`` only accepts connections from this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// The server admin, as CouchDB's `[admins]` section: a name and a password, kept only as a PBKDF2 hash.
public struct ServerAdmin: Sendable {
    /// The admin's user name.
    public var name: String
    /// The admin's password (hashed when the server starts, never written anywhere).
    public var password: String

    /// Creates an admin.
    public init(name: String, password: String) {
        self.name = name
        self.password = password
    }

    /// Parses `USER:PASSWORD` (the password may contain `:`).
    /// - Throws: `CloudantError` `.invalidAdmin` when there is no `:` or a part is empty.
    public init(parsing text: String) throws(CloudantError) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            text.index(after: colon) != text.endIndex
        else {
            throw CloudantError(.invalidAdmin, "Give the admin as USER:PASSWORD, both non-empty.")
        }
        self.init(name: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }
}
