internal import ArgumentParser
internal import CloudantOnly
internal import CloudantServer
internal import CloudantDashboardPanels
internal import CloudantJavaScript
internal import Foundation

/// `cloudant serve`: serves the stores of the data folder over CouchDB's HTTP API.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the stores over CouchDB's HTTP API, for curl, CouchDB's and PouchDB's replicators.",
        discussion: """
            Each store in --data is a database. Prints one JSON line with the URL once listening; stops \
            gracefully on SIGINT or SIGTERM. The admin may also come from the CLOUDANT_ADMIN environment \
            variable (USER:PASSWORD), which keeps the password off the command line. Without an admin the \
            server only binds a loopback address, and every request acts as an admin ("admin party"). A web \
            dashboard answers at /_utils/ (databases, documents, queries, changes, health charts, care \
            calendars) behind the same logins; --no-dashboard turns it off.

            Example:
              CLOUDANT_ADMIN=admin:secret cloudant --data ./cloudant-data serve \\
                --bind 0.0.0.0 --port 5984
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "ADDRESS"))
    var bind = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The TCP port (0 picks a free one).", valueName: "PORT"))
    var port = 5984

    @Option(name: .long, help: ArgumentHelp("The server admin (or set CLOUDANT_ADMIN).", valueName: "USER:PASSWORD"))
    var admin: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long one call of a design document's JavaScript function may run before it is stopped (CouchDB's os_process_timeout).",
            valueName: "SECONDS"))
    var functionTimeout = 5.0

    @Option(name: .long, help: ArgumentHelp("The largest request body accepted, in bytes (also once gzip is inflated).", valueName: "BYTES"))
    var maxBodySize = 64 * 1024 * 1024

    @Option(name: .long, help: ArgumentHelp("The largest attachment accepted, in bytes; attachment uploads stream to disk past --max-body-size.", valueName: "BYTES"))
    var maxAttachmentSize = 1 << 30

    @Option(name: .long, help: ArgumentHelp("The node's name in /_membership and /_node/{node} (CouchDB's -name).", valueName: "NAME"))
    var nodeName = "nonode@nohost"

    @Option(name: .long, help: ArgumentHelp(
            "Steps one $regex evaluation may take before the request is refused (400 bad_arg); at most \(MatchLimits.maximumRegexStepLimit).",
            valueName: "STEPS"))
    var regexStepLimit = MatchLimits.defaultRegexStepLimit

    @Option(name: .long, help: ArgumentHelp("Conflicting leaves one document may have; a replicated revision past it is refused (too_large).", valueName: "COUNT"))
    var maxLeavesPerDocument = 1_000

    @Option(name: .long, help: ArgumentHelp("PBKDF2 iterations of new _users password hashes (CouchDB's [chttpd_auth] iterations).", valueName: "COUNT"))
    var passwordIterations = 600_000

    @Option(name: .long, help: ArgumentHelp("The most PBKDF2 iterations a stored password hash may have for a login to compute it.", valueName: "COUNT"))
    var maxPasswordIterations = 1_000_000

    @Option(name: .long, help: ArgumentHelp("The longest a longpoll or continuous _changes feed waits, in ms (CouchDB's changes_timeout).", valueName: "MS"))
    var changesTimeout = 60_000

    @Option(name: .long, help: ArgumentHelp("Seconds before an idle keep-alive connection is closed (0: never).", valueName: "SECONDS"))
    var idleTimeout = 300

    @Option(name: .long, help: ArgumentHelp("Seconds SIGTERM lets requests in progress finish before cancelling them.", valueName: "SECONDS"))
    var shutdownGracePeriod = 10

    @Option(name: .long, help: ArgumentHelp("Failed logins per user name per window before logins for it are refused (429).", valueName: "COUNT"))
    var loginFailuresPerUser = 5

    @Option(name: .long, help: ArgumentHelp("Failed logins per client address per window before its logins are refused (429).", valueName: "COUNT"))
    var loginFailuresPerAddress = 20

    @Option(name: .long, help: ArgumentHelp("Seconds a failed login counts against its user name and address.", valueName: "SECONDS"))
    var loginWindow = 60

    @Option(name: .long, help: ArgumentHelp("Seconds a session cookie stays valid without use; used sessions get a fresh cookie.", valueName: "SECONDS"))
    var sessionTimeout = 600

    @Option(name: .long, help: ArgumentHelp("Seconds a session lasts from its login however much it is used (0: no limit).", valueName: "SECONDS"))
    var sessionMaxLifetime = 0

    @Option(name: .long, help: ArgumentHelp("The session cookie's SameSite attribute: strict, lax or none.", valueName: "POLICY"))
    var cookieSameSite = "lax"

    @Flag(name: .long, help: "Mark the session cookie Secure even without --tls-certificate (behind a TLS proxy).")
    var secureCookies = false

    @Option(name: .long, help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "FILE"))
    var tlsCertificate: String?

    @Option(name: .long, help: ArgumentHelp("The PEM private key of --tls-certificate.", valueName: "FILE"))
    var tlsKey: String?

    @Flag(name: .long, help: "Give every user of _users a private database, userdb-<hex of name> (CouchDB's couch_peruser).")
    var perUserDatabases = false

    @Option(name: .long, help: ArgumentHelp("The per-user database name prefix.", valueName: "PREFIX"))
    var perUserPrefix = "userdb-"

    @Flag(name: .long, help: "Delete a user's private database with the user (otherwise it is kept).")
    var deleteUserDatabases = false

    @Flag(name: .long, help: "Keep an audit trail of who read, wrote, deleted, replicated or was refused what (read it with `cloudant audit`).")
    var audit = false

    @Option(name: .long, help: ArgumentHelp("The audit trail's folder (default: _audit in --data).", valueName: "DIR"))
    var auditFolder: String?

    @Option(name: .long, help: ArgumentHelp("Days of audit trail to keep (default: all).", valueName: "DAYS"))
    var auditRetentionDays: Int?
    @Flag(name: .long, help: "Turn off the web dashboard at /_utils (its paths answer 404).")
    var noDashboard = false

    func validate() throws {
        guard CookieSameSite(rawValue: cookieSameSite.capitalized) != nil else {
            throw ValidationError("--cookie-same-site must be strict, lax or none.")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together.")
        }
        if let days = auditRetentionDays, days < 1 { throw ValidationError("--audit-retention-days must be at least 1.") }
        guard (1...MatchLimits.maximumRegexStepLimit).contains(regexStepLimit) else {
            throw ValidationError(
                "--regex-step-limit must be between 1 and \(MatchLimits.maximumRegexStepLimit): past that, one $regex over one "
                    + "value could hold a request for seconds.")
        }
    }

    /// The session, TLS, per-user and audit options onto `settings`.
    private func applySecurityOptions(to settings: inout ServerConfiguration) {
        settings.sessionTimeout = max(1, sessionTimeout)
        settings.sessionMaxLifetime = sessionMaxLifetime > 0 ? sessionMaxLifetime : nil
        settings.cookieSameSite = CookieSameSite(rawValue: cookieSameSite.capitalized) ?? .lax
        if secureCookies { settings.secureCookies = true }
        if let tlsCertificate, let tlsKey {
            settings.tls = ServerTLS(certificatePath: tlsCertificate, privateKeyPath: tlsKey)
        }
        if perUserDatabases {
            settings.perUserDatabases = PerUserDatabases(prefix: perUserPrefix, deleteWithUser: deleteUserDatabases)
        }
        if audit || auditFolder != nil || auditRetentionDays != nil {
            settings.audit = AuditSettings(folder: auditFolder, retentionDays: auditRetentionDays)
        }
    }

    func run() async throws {
        do {
            let adminText = admin ?? ProcessInfo.processInfo.environment["CLOUDANT_ADMIN"]
            var settings = ServerConfiguration(
                host: bind, port: port, directory: global.stores,
                admin: try adminText.map { try ServerAdmin(parsing: $0) }, maxRequestBodySize: maxBodySize,
                regexStepLimit: regexStepLimit, changesTimeout: max(1, changesTimeout),
                idleTimeout: idleTimeout > 0 ? idleTimeout : nil, shutdownGracePeriod: max(0, shutdownGracePeriod),
                loginThrottle: LoginThrottlePolicy(
                    maxFailuresPerUser: loginFailuresPerUser, maxFailuresPerAddress: loginFailuresPerAddress,
                    window: loginWindow))
            settings.maxAttachmentSize = max(0, maxAttachmentSize)
            settings.nodeName = nodeName
            settings.maxLeavesPerDocument = max(1, maxLeavesPerDocument)
            settings.passwordIterations = max(1, passwordIterations)
            settings.maxPasswordIterations = max(1, maxPasswordIterations)
            settings.encryptionKey = try global.encryptionKey()
            applySecurityOptions(to: &settings)
            settings.dashboardEnabled = !noDashboard
            settings.dashboardPanels = [HealthDashboardPanel(), CareDashboardPanel(), ReplicationDashboardPanel()]
            // Views, validation functions, filters, shows, lists, updates and rewrites written in JavaScript.
            settings.designFunctions = JavaScriptEngine(
                configuration: .init(timeLimit: .milliseconds(Int64(max(0.001, functionTimeout) * 1000))))
            let configuration = settings
            let server = try CouchServer(configuration: configuration)
            try await server.runUntilTerminated { url in
                // A server keeps serving when whoever started it stopped reading after this line.
                Output.print(
                    [
                        "ok": true, "url": .string(url), "data": .string(global.data), "uuid": .string(server.uuid),
                        "admin": configuration.admin.map { .string($0.name) } ?? .null,
                        "dashboard": configuration.dashboardEnabled ? .string(url + "/_utils/") : .null,
                    ], whenClosed: .ignore)
            }
        } catch let error as CloudantError where error.code.isServerStartFailure {
            // CouchDB-shaped like every other CLI error, with the server's own code as the error name.
            let body: JSONValue = ["error": .string(error.code.rawValue), "reason": .string(error.message)]
            StandardStreams.error(Data(body.jsonBytes() + [UInt8(ascii: "\n")]))
            throw ErrorCategory(of: error).exitCode
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Output.printError(error)
            throw ErrorCategory(of: error).exitCode
        }
    }
}
