internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

/// Everything a request needs: the configuration, the databases, the authenticator and the server's
/// identity. Route handlers are facets of this type (`CouchEndpoint+Documents.swift`, …).
final class CouchEndpoint: Sendable {
    let configuration: ServerConfiguration
    let registry: DatabaseRegistry
    let authenticator: Authenticator
    let identity: ServerIdentity
    /// Carries out what changes to `_users` mean: sessions ended, per-user databases.
    let usersFollower: UsersFollower
    /// Where answered requests are recorded, when the server keeps an audit trail.
    let auditTrail: AuditTrail?
    /// Requests whose handler is running (their response not yet produced); tests watch it drop to zero.
    let requestsInProgress = Locked(0)
    /// Longpoll and continuous `_changes` feeds whose response is still being written.
    let openFeeds = Locked(0)
    /// What to stop when each open connection closes (its running request, its feed).
    let connectionWatchers = ConnectionWatchers()
    /// The web dashboard at `/_utils`; `nil` when the configuration turns it off.
    let dashboard: Dashboard?
    /// The node's configuration (`/_node/{node}/_config`), whose server settings apply at once.
    let nodeConfiguration: NodeConfiguration
    /// New ids for `/_uuids` and documents written without one.
    let uuids: CouchUUIDs
    /// Request counters for `/_node/{node}/_stats`.
    let statistics = ServerStatistics()
    /// Where password derivations run (logins, and `_users` writes that set a password).
    let hashing: PasswordHashingPool
    /// The budget of the bodies of anonymous requests being read.
    let anonymousBodies: AnonymousBodies
    /// The replication jobs (`/_replicate`, `_replicator` documents, `/_scheduler`).
    let replicationScheduler: ReplicationScheduler
    /// Turns `_replicator` documents into jobs.
    let replicatorDatabase: ReplicatorDatabase
    /// The database events `/_db_updates` reports.
    let databaseUpdatesLog: DatabaseUpdates
    /// The system databases this start created, whose `_security` object ``start()`` writes.
    private let systemDatabasesCreated: [DocumentStore]

    init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        let nodeConfiguration = NodeConfiguration(configuration: configuration, folder: configuration.directory.path)
        self.nodeConfiguration = nodeConfiguration
        let servedBefore = FileManager.default.fileExists(
            atPath: URL(fileURLWithPath: configuration.directory.path).appendingPathComponent(ServerIdentity.fileName).path)
        do {
            try FileManager.default.createDirectory(atPath: configuration.directory.path, withIntermediateDirectories: true)
            try nodeConfiguration.settleAnonymousAccess(servedBefore: servedBefore)
        } catch {
            throw CloudantError(
                .dataFolderUnusable, "Could not write the configuration file; check that the data folder is writable.",
                underlying: error)
        }
        let uuids = CouchUUIDs(node: nodeConfiguration)
        self.uuids = uuids
        let registry = DatabaseRegistry(
            directory: configuration.directory, encryptionKey: configuration.encryptionKey,
            designFunctions: configuration.designFunctions, maxLeavesPerDocument: configuration.maxLeavesPerDocument,
            makeDocumentID: { uuids.next() }, defaultSecurity: { nodeConfiguration.defaultSecurityObject })
        self.registry = registry
        registry.setMaxPartitionSize(nodeConfiguration.maxPartitionSize)
        let hashing = PasswordHashingPool()
        self.hashing = hashing
        anonymousBodies = AnonymousBodies(budget: configuration.anonymousBodyBudget)
        identity = try ServerIdentity.load(folder: configuration.directory.path, uuid: configuration.uuid)
        // `couchdb/uuid` is the server's uuid, as `couch_server:get_uuid/0` keeps it in the configuration.
        if (nodeConfiguration.value("couchdb", "uuid") ?? "").isEmpty {
            _ = try? nodeConfiguration.set("couchdb", "uuid", to: identity.uuid, persist: false)
        }
        dashboard = configuration.dashboardEnabled
            ? Dashboard(secret: identity.secret, panels: configuration.dashboardPanels) : nil
        // `_users` exists from the start, as after CouchDB's single-node setup.
        systemDatabasesCreated = try [UsersDatabase.name, ReplicatorDatabase.name].compactMap { name in
            let (store, created) = try registry.openSystemAtStart(name)
            return created ? store : nil
        }
        let databaseUpdatesLog = try DatabaseUpdates(
            folder: configuration.directory.path, encryptionKey: configuration.encryptionKey, accounted: registry.commitCounts())
        self.databaseUpdatesLog = databaseUpdatesLog
        let scheduler = ReplicationScheduler(registry: registry, settings: configuration.replicator, node: nodeConfiguration)
        replicationScheduler = scheduler
        let replicatorDatabase = ReplicatorDatabase(registry: registry, scheduler: scheduler)
        self.replicatorDatabase = replicatorDatabase
        scheduler.onDocumentJobCompleted.withLock { notify in
            notify = { job, _ in
                let record = job.record.withLock { $0 }
                guard let documentID = record.documentID else { return }
                await replicatorDatabase.markCompleted(documentID, record: record)
            }
        }
        let cookiePolicy = CookiePolicy(
            sameSite: configuration.cookieSameSite, secure: configuration.secureCookies ?? (configuration.tls != nil),
            maxLifetime: configuration.sessionMaxLifetime)
        authenticator = try Authenticator(
            admin: configuration.admin, iterations: configuration.passwordIterations, secret: identity.secret,
            sessionTimeout: nodeConfiguration.sessionTimeout, cookiePolicy: cookiePolicy,
            // Kept in `_users` whichever database users log in from; lost from memory only if it is deleted.
            sessions: SessionRegistry(store: { try await registry.store(UsersDatabase.name) }),
            throttle: LoginThrottle(policy: configuration.loginThrottle),
            lockout: AuthLockout(settings: { nodeConfiguration.authLockout }),
            hashing: hashing, maxIterations: configuration.maxPasswordIterations,
            configuredAdmins: { nodeConfiguration.admins },
            allowsConflictedUsers: { nodeConfiguration.value("chttpd_auth", "allow_conflicted_user_docs") == "true" },
            hashUpgrade: PasswordHashUpgrade(
                settings: {
                    PasswordHashUpgrade.Settings(
                        enabled: nodeConfiguration.value("chttpd_auth", "upgrade_hash_on_auth") != "false",
                        password: nodeConfiguration.passwordSettings)
                },
                hashing: hashing,
                write: { document in _ = try await registry.store(nodeConfiguration.authenticationDatabase).put(document) }),
            lookUpUser: { name in
                // Looked up each time: the database may have been deleted and created again, or another one
                // configured, since. A missing database has no users (CouchDB's `database_does_not_exist`).
                try? await registry.store(nodeConfiguration.authenticationDatabase).document(
                    id: UsersDatabase.idPrefix + name, options: ReadOptions(conflicts: true))
            })
        try nodeConfiguration.hashClearAdminPasswords()
        if let (name, hash) = authenticator.startupAdmin {
            // Shown as CouchDB shows the admins of its ini files; kept for this run only.
            try nodeConfiguration.set("admins", name, to: AdminPasswords.value(of: hash), persist: false)
        }
        let usersFollower = UsersFollower(
            registry: registry, database: { nodeConfiguration.authenticationDatabase }, sessions: authenticator.sessions, perUser: configuration.perUserDatabases)
        self.usersFollower = usersFollower
        // Signed with the server's secret (its head and anchor) and, on an encrypted server, encrypted.
        let auditKeys = AuditKeys(secret: identity.secret, encryptionKey: configuration.encryptionKey)
        auditTrail = try configuration.audit.map { settings in
            try AuditTrail(
                folder: settings.folder ?? URL(fileURLWithPath: configuration.directory.path).appendingPathComponent("_audit").path,
                retentionDays: settings.retentionDays,
                keys: auditKeys)
        }
    }

    /// The database users log in from (`chttpd_auth/authentication_db`, `_users` unless configured).
    var usersDatabase: String { nodeConfiguration.authenticationDatabase }

    /// Whether user documents' shape is checked natively (``UsersDatabase/refusal(of:)``): on a server that
    /// runs no design functions, where `_design/_auth` cannot check it.
    var validatesUsersNatively: Bool { configuration.designFunctions == nil }

    /// Loads what the server keeps between runs (the cookie sessions) before the first request.
    func start() async {
        // Snapshots a crash left behind: nobody reads them any more.
        try? FileManager.default.removeItem(at: panelSnapshotsFolder)
        // A failed write leaves no stored object, which reads as admin-only.
        for store in systemDatabasesCreated { try? await registry.writeDefaultSecurity(store) }
        await authenticator.sessions.load(isLive: authenticator.isLive)
        await usersFollower.catchUp()
        // What the server wrote while it started (its system databases' setup, `_design/_auth`) is no update.
        await databaseUpdatesLog.account(registry.commitCounts())
        listenForDatabaseEvents()
        await replicatorDatabase.catchUp()
    }

    /// Tells the database events to `/_db_updates` and to the users follower from now on.
    private func listenForDatabaseEvents() {
        let (databaseUpdatesLog, usersFollower) = (databaseUpdatesLog, usersFollower)
        registry.events.withLock { listener in
            listener = { event, name in
                switch event {
                case .created: await databaseUpdatesLog.record("created", name)
                case .deleted: await databaseUpdatesLog.record("deleted", name)
                case .updated(let commits): await databaseUpdatesLog.noteCommits(commits, to: name)
                }
                await usersFollower.databaseEvent(event, name)
            }
        }
    }

    /// Where dashboard panels' snapshots for restricted users are made (``DashboardPanelSnapshot``): a hidden
    /// folder of the data folder, so they are encrypted at rest like the databases and never listed as one.
    var panelSnapshotsFolder: URL {
        URL(fileURLWithPath: configuration.directory.path, isDirectory: true).appendingPathComponent(".panel-snapshots")
    }

    /// Writes what the audit trail has queued and releases its folder (the server has stopped).
    func stop() async {
        await authenticator.hashUpgrade?.finished()
        await replicationScheduler.stopAll()
        await usersFollower.stop()
        await databaseUpdatesLog.close()
        await registry.closeAll()
        await auditTrail?.close()
    }

    /// Answers one HTTP request; every failure becomes a CouchDB error body here and nowhere else.
    ///
    /// - Parameter connection: the connection the request came on (its client's address and closing).
    func respond(to request: Request, connection: ClientConnection? = nil) async -> Response {
        requestsInProgress.withLock { $0 += 1 }
        defer { requestsInProgress.withLock { $0 -= 1 } }
        let reservation = AnonymousBodies.Reservation(anonymousBodies)
        defer { reservation.release() }
        var prepared: CouchRequest?
        var stage = AuthenticationStage.notReached
        let cors = nodeConfiguration.cors
        var response: Response
        if request.method == .options, let cors,
            let preflight = cors.preflight(
                origin: request.headers[HTTPField.Name("Origin")!],
                requestMethod: request.headers[HTTPField.Name("Access-Control-Request-Method")!],
                requestHeaders: request.headers[HTTPField.Name("Access-Control-Request-Headers")!])
        {
            // A browser's preflight, answered before authentication as `chttpd_cors` answers it.
            response = CouchResponse.exact([], status: 204, headers: preflight)
        } else {
            let upgrades = PasswordHashUpgrade.Deferral()
            defer { upgrades.startPending() }
            response = await PasswordHashUpgrade.$deferral.withValue(upgrades) {
                await answer(request, connection: connection, reservation: reservation, stage: &stage, prepared: &prepared)
            }
            if let cors {
                let names = response.headers.map(\.name.canonicalName)
                for (name, value) in cors.headers(origin: request.headers[HTTPField.Name("Origin")!], responseHeaderNames: names) {
                    if let field = HTTPField.Name(name) { response.headers[field] = value }
                }
            }
        }
        // The query is read for a callback only when JSONP is on (off by default), not on every answer.
        if nodeConfiguration.value("chttpd", "allow_jsonp") == "true" {
            response = JSONPResponse.apply(
                to: response, callback: QueryParameters(rawQuery: request.uri.query ?? "")["callback"], method: request.method)
        }
        response.headers[HTTPField.Name("X-Couch-Request-ID")!] = Self.requestID(request.headers[HTTPField.Name("X-Couch-Request-ID")!])
        response.headers[HTTPField.Name("X-CouchDB-Body-Time")!] = "0"
        // RFC 9112 §9.6: the answer to a request that closes the connection says so, so the client does not
        // send its next request on a connection about to close.
        if Self.asksToClose(request.headers[.connection]) { response.headers[.connection] = "close" }
        statistics.record(method: request.method.rawValue, status: Int(response.status.code))
        audit(
            request, prepared: prepared, stage: stage, status: Int(response.status.code), etag: response.headers[.eTag],
            connection: connection)
        return response
    }

    /// Whether a `Connection` header carries the `close` option (a comma-separated list, any case).
    static func asksToClose(_ connection: String?) -> Bool {
        guard let connection else { return false }
        return connection.split(separator: ",").contains { $0.trimmingSpaces.lowercased() == "close" }
    }

    /// The method a request is answered as: a `POST` may name another in `X-HTTP-Method-Override`, for clients
    /// that can only send `GET` and `POST` (`chttpd:handle_request_int/1`); any other method stays as sent.
    static func method(of request: Request) -> HTTPRequest.Method {
        guard request.method == .post, let override = request.headers[HTTPField.Name("X-HTTP-Method-Override")!],
            ["GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "CONNECT", "COPY"].contains(override),
            let method = HTTPRequest.Method(override)
        else { return request.method }
        return method
    }

    /// The request's `X-Couch-Request-ID`, as CouchDB's `chttpd:nonce/1` makes it: the client's own when it is
    /// at most 36 letters, digits, `-` or `_`; otherwise ten random hex digits.
    static func requestID(_ given: String?) -> String {
        if let given, !given.isEmpty, given.utf8.count <= 36,
            given.utf8.allSatisfy({ byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            })
        {
            return given
        }
        return Hex.encode(SecureRandom.bytes(5))
    }

    /// How far a request got with authentication (the audit trail says so rather than name a user who was not
    /// authenticated).
    enum AuthenticationStage: Sendable {
        /// Refused before its credentials were looked at.
        case notReached
        /// Its credentials were refused; the name they gave, if any.
        case failed(tried: String?)
        /// Authenticated, or anonymous without credentials.
        case done
    }

    /// The response to a request; `prepared` is set once the request is read and authenticated.
    private func answer(
        _ request: Request, connection: ClientConnection?, reservation: AnonymousBodies.Reservation,
        stage: inout AuthenticationStage, prepared: inout CouchRequest?
    ) async -> Response {
        do {
            let read = try await prepare(request, connection: connection, reservation: reservation, stage: &stage)
            prepared = read
            // Design documents' validation functions see the request's user as `userCtx`.
            let writer = WriterIdentity(
                name: read.user.name, roles: read.user.roles, defaultSecurityObject: SecurityObject.adminOnly.json.objectValue)
            let response = try await DocumentStore.$writer.withValue(writer) { try await route(read) }
            if read.segments.first == usersDatabase, read.method != .get, read.method != .head {
                authenticator.forgetAdminRoles()
                await usersFollower.catchUp()
            }
            if read.segments.first == ReplicatorDatabase.name, read.method != .get, read.method != .head {
                await replicatorDatabase.catchUp()
            }
            return renewingCookie(response, for: read)
        } catch {
            let failure: HTTPFailure =
                switch error {
                case let failure as HTTPFailure: failure
                case is NIOTooManyBytesError: .tooLarge
                // Any module's error, by its category (an uncategorised one is CouchDB's 500 unknown_error).
                default: HTTPFailure(body: CouchErrorBody(error))
                }
            return renewingCookie(CouchResponse.failure(challenging(failure, headers: request.headers)), for: prepared)
        }
    }

    /// `failure` with the `WWW-Authenticate` header `chttpd:error_headers/4` gives a `401`: the request's
    /// `X-CouchDB-WWW-Authenticate`, else `chttpd/WWW-Authenticate`, else, for `unauthorized` while
    /// `chttpd/require_valid_user` is set, the browser's login prompt (`Basic realm="server"`).
    private func challenging(_ failure: HTTPFailure, headers: HTTPFields) -> HTTPFailure {
        guard failure.body.status == 401, !failure.headers.contains(where: { $0.0 == "WWW-Authenticate" }) else { return failure }
        let challenge =
            HTTPField.Name("X-CouchDB-WWW-Authenticate").flatMap { headers[$0] }
            ?? nodeConfiguration.value("chttpd", "WWW-Authenticate")
            ?? (failure.body.error == "unauthorized" && nodeConfiguration.requireValidUser ? "Basic realm=\"server\"" : nil)
        guard let challenge else { return failure }
        var failure = failure
        failure.headers.append(("WWW-Authenticate", challenge))
        return failure
    }

    /// `response` with the request's re-issued session cookie, when it has one and the response sets none: every
    /// response to an authenticated request carries it, errors included (`couch_httpd_auth:cookie_auth_header/2`
    /// through `basic_headers`).
    private func renewingCookie(_ response: Response, for request: CouchRequest?) -> Response {
        guard let refreshed = request?.refreshedCookie, response.headers[.setCookie] == nil else { return response }
        var response = response
        response.headers[.setCookie] = authenticator.setCookieHeader(refreshed)
        return response
    }

    /// Reads the target, the credentials, then the body (up to the size limit).
    ///
    /// Credentials come first, as in CouchDB (`chttpd` authenticates before a handler reads the body): a request
    /// whose login fails is refused before its body is read, and an anonymous request's body is read within
    /// ``AnonymousBodies``' limits.
    private func prepare(
        _ request: Request, connection: ClientConnection?, reservation: AnonymousBodies.Reservation,
        stage: inout AuthenticationStage
    ) async throws -> CouchRequest {
        let clientAddress = connection?.address
        let (segments, query, invalidSegment) = CouchRequest.parseTarget(
            request.head.path ?? "/", plusIsSpace: nodeConfiguration.decodePlusToSpace)
        var partitionNotUTF8: [UInt8]?
        if let invalidSegment {
            guard CouchRequest.isPartitionSegment(invalidSegment.index, of: segments) else {
                throw CouchRequest.invalidUTF8Failure(segments: segments, invalid: invalidSegment, method: request.method)
            }
            partitionNotUTF8 = invalidSegment.bytes
        }
        let credentials: Credentials
        do {
            credentials = try await authenticate(request.headers, clientAddress: clientAddress)
        } catch {
            stage = .failed(tried: BasicAuthorization(request.headers).name)
            throw error
        }
        stage = .done
        let anonymous = !credentials.user.isAuthenticated
        let limit =
            anonymous
            ? min(nodeConfiguration.maxRequestBodySize, configuration.maxAnonymousBodySize) : nodeConfiguration.maxRequestBodySize
        let streamsBody = CouchRequest.streamsBody(
            method: request.method, segments: segments, contentType: request.headers[.contentType])
        if !streamsBody, let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw HTTPFailure.tooLarge
        }
        var body: [UInt8] = []
        if !streamsBody, request.method != .get, request.method != .head {
            if anonymous {
                body = try await anonymousBodies.collect(request.body, limit: limit, into: reservation)
            } else {
                var mutable = request
                let buffer = try await mutable.collectBody(upTo: limit)
                body = Array(buffer.readableBytesView)
            }
        }
        var prepared = CouchRequest(
            method: Self.method(of: request), segments: segments, query: query, headers: request.headers, body: body,
            bodyStream: streamsBody ? request.body : nil, user: credentials.user, authority: request.head.authority,
            connection: connection, bodyLimit: limit)
        prepared.rawTarget = request.head.path ?? "/"
        prepared.forwardedHeaders = nodeConfiguration.forwardedHeaders
        prepared.partitionNotUTF8 = partitionNotUTF8
        prepared.session = credentials.session
        prepared.authenticatedBy = credentials.handler
        prepared.refreshedCookie = credentials.refreshedCookie
        return prepared
    }

    /// Who a request's credentials name, and the cookie session they came from.
    private struct Credentials {
        var user: UserContext
        var session: SessionRegistry.Session? = nil
        var refreshedCookie: String? = nil
        /// The handler that authenticated the request, as `/_session` names it.
        var handler: AuthenticationHandler? = nil
    }

    /// The handlers `chttpd/authentication_handlers` names, in its order (the `AuthSession` cookie, then basic
    /// auth, by default; JWT bearer tokens and proxy headers when named): the first that names a user does;
    /// anonymous otherwise.
    /// - Throws: ``HTTPFailure`` `401 unauthorized` for wrong basic-auth credentials or an expired token, `400`
    ///   for a malformed one, `429 too_many_requests` while the name or address has too many recent failures.
    private func authenticate(_ headers: HTTPFields, clientAddress: String?) async throws -> Credentials {
        if authenticator.isAdminParty { return Credentials(user: UserContext(name: nil, roles: ["_admin"])) }
        for handler in nodeConfiguration.authenticationHandlers {
            switch handler {
            case .jwt:
                guard let authorization = headers[.authorization], authorization.hasPrefix("Bearer ") else { continue }
                let user = try JSONWebToken.user(
                    fromToken: String(authorization.dropFirst("Bearer ".count)), settings: nodeConfiguration.jsonWebTokenSettings,
                    now: Date().timeIntervalSince1970)
                return Credentials(user: user, handler: .jwt)
            case .proxy:
                guard let user = ProxyAuthentication.user(in: headers, settings: nodeConfiguration.proxySettings) else { continue }
                return Credentials(user: user, handler: .proxy)
            case .cookie:
                guard let cookie = Self.cookie(named: "AuthSession", in: headers), !cookie.isEmpty else { continue }
                // A value that is not a cookie at all is refused; a forged, expired or revoked one is anonymous.
                if SessionCookie.isMalformed(cookie) {
                    throw HTTPFailure.badRequest("Malformed AuthSession cookie. Please clear your cookies.")
                }
                guard let found = await authenticator.session(fromCookie: cookie) else { continue }
                return Credentials(user: found.user, session: found.session, refreshedCookie: found.refreshed, handler: .cookie)
            case .basic:
                switch BasicAuthorization(headers) {
                case .credentials(let name, let password):
                    let user = try await login(name: name, password: password, clientAddress: clientAddress, basicAuth: true)
                    return Credentials(user: user, handler: .basic)
                case .malformed:
                    throw HTTPFailure.badRequest("Authorization header has invalid base64 value")
                case .absent:
                    continue
                }
            }
        }
        return Credentials(user: .anonymous)
    }

    /// Checks a name and password (basic auth or `POST /_session`).
    /// - Throws: ``HTTPFailure`` `401 unauthorized` when they are wrong, `429 too_many_requests` (with
    ///   `Retry-After`) while the name or the address has too many recent failures or this client already has
    ///   derivations waiting, `503 service_unavailable` (with `Retry-After`) while the server's hashing queue is
    ///   full, `403 forbidden` for a stored hash outside the server's parameters (CouchDB's reasons).
    /// - Parameter basicAuth: The credentials came in an `Authorization` header, where a name nobody has is not
    ///   counted by the lockout (``Authenticator/login(name:password:address:locksOutUnknownNames:)``).
    func login(name: String, password: String, clientAddress: String?, basicAuth: Bool = false) async throws -> UserContext {
        switch try await authenticator.login(
            name: name, password: password, address: clientAddress, locksOutUnknownNames: !basicAuth)
        {
        case .authenticated(let user):
            return user
        case .rejected:
            throw HTTPFailure.unauthorized("Name or password is incorrect.")
        case .refused(let reason):
            throw HTTPFailure.forbidden(reason)
        case .busy(let refusal):
            throw HTTPFailure.hashingBusy(refusal)
        case .lockedOut:
            throw HTTPFailure.forbidden(AuthLockout.reason)
        case .conflicted:
            throw HTTPFailure.unauthorized(Authenticator.conflictedUserReason)
        case .throttled(let seconds):
            var failure = HTTPFailure(
                status: 429, error: "too_many_requests",
                reason: "Too many failed logins for this name or from this address. Try again in \(seconds) s.")
            failure.headers = [("Retry-After", String(seconds))]
            throw failure
        }
    }

    private static func cookie(named name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == name { return String(pair[1]) }
            }
        }
        return nil
    }
}

extension HTTPFailure {
    init(body: CouchErrorBody) {
        self.init(status: body.status, error: body.error, reason: body.reason)
        self.body.reasonValue = body.reasonValue
    }

    /// The answer to a password derivation the hashing queue did not take: `429` for a client that already has
    /// its share waiting, `503` when the server's queue is full; both with `Retry-After: 1`.
    static func hashingBusy(_ refusal: PasswordHashingPool.Refusal) -> HTTPFailure {
        var failure =
            switch refusal {
            case .clientBusy:
                HTTPFailure(
                    status: 429, error: "too_many_requests",
                    reason: "This client already has password checks waiting. Try again in 1 s.")
            case .serverBusy:
                HTTPFailure(
                    status: 503, error: "service_unavailable",
                    reason: "The server has too many password checks waiting. Try again in 1 s.")
            }
        failure.headers = [("Retry-After", "1")]
        return failure
    }
}
