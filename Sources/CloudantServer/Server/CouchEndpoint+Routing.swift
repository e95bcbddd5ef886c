internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

/// The access a route needs on its database.
enum Access {
    /// Read and write documents: a member (or admin) of the database.
    case member
    /// Change the database's design or security: a database admin.
    case admin
}

extension CouchEndpoint {
    /// Dispatches a request by its path, exactly as CouchDB lays out its URLs.
    func route(_ request: CouchRequest) async throws -> Response {
        let segments = request.segments
        try requireValidUser(request)
        guard let first = segments.first else { return try root(request) }
        switch first {
        case "_up": return try up(request)
        case "_session": return try await session(request)
        // The dashboard answers anonymous visitors itself, with its login page.
        case "_utils": return try await dashboard(request)
        // A user's own cookie sessions (an endpoint CouchDB does not have): any logged-in user, for their own.
        case "_sessions":
            guard request.user.isAuthenticated else { throw HTTPFailure.unauthorized("You are not an authenticated user") }
            return try await sessions(request)
        default: break
        }
        guard let checked = try await authorize(request) else { return try await dispatch(request, first: first) }
        // The handler's own access check reads the security object the gate read.
        return try await CheckedSecurity.$current.withValue(checked) { try await dispatch(request, first: first) }
    }

    /// Dispatches a request that passed ``authorize(_:)`` by its path, whose first segment is `first`.
    private func dispatch(_ request: CouchRequest, first: String) async throws -> Response {
        let segments = request.segments
        switch first {
        case "_all_dbs": return try allDatabases(request)
        case "_uuids": return try uuids(request)
        case "_membership": return try membership(request)
        case "_active_tasks": return try activeTasks(request)
        case "_dbs_info": return try await databasesInfo(request)
        case "_node": return try await node(request)
        case "_replicate": return try await replicate(request)
        case "_scheduler": return try await scheduler(request)
        case "_db_updates": return try await databaseUpdates(request)
        case "_reload_query_servers": return try reloadQueryServers(request)
        default: break
        }
        // CouchDB's resharding API: there are no shards to split here (see the compatibility article).
        if first == "_reshard" { throw HTTPFailure.badRequest("Unknown server endpoint: \(first)") }
        // Any other path is a database's, `/_…` names included: `chttpd` hands a path no server handler
        // claims to `chttpd_db:handle_request/1` (once a server admin asks, as `authorize_request/1` wants), so
        // `GET /_config` is a database that does not exist and `PUT /_config` an illegal database name.
        guard segments.count > 1 else { return try await database(request, name: first) }
        let second = segments[1]
        let rest = Array(segments.dropFirst(2))
        if let namespace = AllDocsNamespace(rawValue: second) {
            switch rest {
            case []: return try await allDocs(request, database: first, namespace: namespace)
            case ["queries"]: return try await allDocsQueries(request, database: first, namespace: namespace)
            // `chttpd_db` reads any longer path as an attachment of a document with the reserved-looking id.
            default: return try await reservedLookingID(request, database: first)
            }
        }
        switch second {
        case "_changes": return try await changes(request, database: first)
        case "_bulk_docs": return try await bulkDocs(request, database: first)
        case "_bulk_get": return try await bulkGet(request, database: first)
        case "_revs_diff": return try await revsDiff(request, database: first)
        case "_missing_revs": return try await revsDiff(request, database: first, answeringMissingRevs: true)
        case "_ensure_full_commit": return try await ensureFullCommit(request, database: first)
        case "_compact" where !rest.isEmpty:
            return try await compactDesign(request, database: first, designDocument: rest.joined(separator: "/"))
        case "_compact": return try await compact(request, database: first)
        case "_view_cleanup": return try await viewCleanup(request, database: first)
        case "_temp_view":
            throw HTTPFailure(status: 410, error: "gone", reason: "Temporary views are not supported in CouchDB")
        case "_security": return try await security(request, database: first)
        case "_revs_limit": return try await revsLimit(request, database: first)
        case "_purge": return try await purge(request, database: first)
        case "_purged_infos": return try await purgedInfos(request, database: first)
        case "_purged_infos_limit": return try await purgedInfosLimit(request, database: first)
        case "_find": return try await find(request, database: first)
        case "_explain": return try await explain(request, database: first)
        case "_index": return try await index(request, database: first, path: rest)
        case "_partition": return try await partition(request, database: first, path: rest)
        case "_local" where rest.count != 1, "_local/":
            // `chttpd_db:db_req/2`'s special cases for local documents named without `%2F`.
            _ = try await authorizedStore(first, for: request.user, access: .member)
            if rest.count > 1 { throw HTTPFailure.badRequest("_local documents do not accept attachments.") }
            throw HTTPFailure.badRequest("Invalid _local document id.")
        case "_design", "_local":
            guard let name = rest.first else { return try await reservedLookingID(request, database: first) }
            let id = second + "/" + name
            if rest.count == 1 { return try await document(request, database: first, id: id) }
            if second == "_design",
                let response = try await designFunction(request, database: first, id: id, path: Array(rest.dropFirst()))
            {
                return response
            }
            return try await attachment(request, database: first, id: id, name: rest.dropFirst().joined(separator: "/"))
        default:
            if second.hasPrefix("_design/"), request.method == .get || request.method == .head {
                return try await designRedirect(request, database: first)
            }
            if second.hasPrefix("_"), !second.hasPrefix("_design/"), !second.hasPrefix("_local/") {
                return try await reservedLookingID(request, database: first)
            }
            if rest.isEmpty { return try await document(request, database: first, id: second) }
            return try await attachment(request, database: first, id: second, name: rest.joined(separator: "/"))
        }
    }

    /// `GET /{db}/_design%2F{name}…`: CouchDB's `db_req/2` redirects it (`301`, no body) to the same path with
    /// the slash written out, so a design document has one address; the database is looked up first.
    private func designRedirect(_ request: CouchRequest, database: String) async throws -> Response {
        _ = try await authorizedStore(database, for: request.user, access: .member)
        var target = request.rawTarget
        if let encoded = target.range(of: "_design%2F", options: .caseInsensitive) { target.replaceSubrange(encoded, with: "_design/") }
        return CouchResponse.exact([], status: 301, headers: [("Location", request.absoluteURI(target))])
    }

    /// A document path whose id starts with `_` but is no reserved id (`/db/_other`, `/db/_design`): CouchDB's
    /// `db_doc_req` checks the id only where it writes (`PUT`, `POST`: `illegal_docid`); reading or deleting
    /// it finds no document. The database is looked up first, as `chttpd_db` opens it before anything else.
    private func reservedLookingID(_ request: CouchRequest, database: String) async throws -> Response {
        _ = try await authorizedStore(database, for: request.user, access: .member)
        if request.method == .put || request.method == .post {
            throw HTTPFailure(status: 400, error: "illegal_docid", reason: "Only reserved document ids may start with underscore.")
        }
        throw HTTPFailure.notFound()
    }

    /// `chttpd/require_valid_user` and `require_valid_user_except_for_up`, as CouchDB's
    /// `party_mode_handler/1` applies them to a request no credentials authenticated: `401`, except a login
    /// (`POST /_session`) and, unless only `require_valid_user` is set, `/_up`.
    private func requireValidUser(_ request: CouchRequest) throws {
        guard !request.user.isAuthenticated else { return }
        let always = nodeConfiguration.requireValidUser
        let exceptUp = nodeConfiguration.requireValidUserExceptForUp
        if request.method == .post, request.segments == ["_session"] { return }
        let required = request.segments == ["_up"] ? always && !exceptUp : always || exceptUp
        guard required else { return }
        // Its `WWW-Authenticate` is added as to any `401` (``CouchEndpoint/challenging(_:headers:)``).
        throw HTTPFailure.unauthorized("Authentication required.")
    }

    /// The first gate, CouchDB's `chttpd_auth_request`: see ``RequestAuthorization``.
    /// - Returns: The database and the security object a member check read, for the handler to use again.
    private func authorize(_ request: CouchRequest) async throws -> CheckedSecurity.Entry? {
        let user = request.user
        switch RequestAuthorization.of(
            method: request.method, segments: request.segments,
            adminOnlyAllDatabases: nodeConfiguration.value("chttpd", "admin_only_all_dbs") != "false",
            usersDatabase: usersDatabase)
        {
        case .open: return nil
        case .authenticatedUser:
            guard user.isAuthenticated else { throw HTTPFailure.unauthorized("You are not an authenticated user") }
            return nil
        case .serverAdmin:
            try requireServerAdmin(user)
            return nil
        case .metricsReader:
            try requireMetrics(user)
            return nil
        case .databaseAdmin(let name):
            let security = try await securityObject(of: registry.store(name))
            try Self.requireMember(security, user)
            guard security.isAdmin(user) else { throw HTTPFailure.unauthorized("You are not a server or db admin.") }
            return CheckedSecurity.Entry(database: name, security: security)
        case .databaseMember(let name):
            // `fabric:get_security/2` opens the database (`404` when it does not exist) as the user, and
            // `couch_db:open/2` checks membership, even for a server admin's request (who is always a member).
            // The authentication database's handlers apply its own rules: users reach their own documents
            // whatever its security object says (``authorizedStore(_:for:access:)``).
            let store = try await registry.store(name)
            guard !user.isServerAdmin else { return nil }
            let security = try await securityObject(of: store)
            if name != usersDatabase { try Self.requireMember(security, user) }
            return CheckedSecurity.Entry(database: name, security: security)
        }
    }

    /// `couch_db:check_is_member/1`: `401` for an anonymous user, `403` for a named one.
    static func requireMember(_ security: SecurityObject, _ user: UserContext) throws {
        guard !security.isMember(user) else { return }
        if user.isAuthenticated { throw HTTPFailure.forbidden("You are not allowed to access this db.") }
        throw HTTPFailure.unauthorized("You are not authorized to access this db.")
    }

    /// The store of `name` once `user` may use it with `access`.
    /// - Throws: ``HTTPFailure`` `404` for an unknown database, `401`/`403` as CouchDB.
    func authorizedStore(_ name: String, for user: UserContext, access: Access) async throws -> DocumentStore {
        let store = try await registry.store(name)
        if user.isServerAdmin { return store }
        let security: SecurityObject
        if let checked = CheckedSecurity.current, checked.database == name {
            security = checked.security
        } else {
            security = try await securityObject(of: store)
        }
        if name == usersDatabase, !security.isAdmin(user) {
            // The authentication database holds password hashes: those who do not administer it reach user
            // documents one at a time (``ownUserDocument(_:id:)``, ``otherUserDocument(_:id:)``), never its
            // queries, after the security object's own answer.
            try Self.requireMember(security, user)
            throw HTTPFailure.forbidden("Only admins can access \(name).")
        }
        switch access {
        case .member:
            try Self.requireMember(security, user)
        case .admin:
            // `couch_db:check_is_admin/1`: a named user who is not an admin is forbidden (403), not unauthorized.
            guard security.isAdmin(user) else {
                if user.isAuthenticated { throw HTTPFailure.forbidden("You are not a db or server admin.") }
                throw HTTPFailure.unauthorized("You are not a db or server admin.")
            }
        }
        return store
    }

    /// The database's security object, or CouchDB 3's admin-only default.
    func securityObject(of store: DocumentStore) async throws -> SecurityObject {
        guard let stored = try await store.securityObject() else { return .adminOnly }
        return (try? SecurityObject(json: stored)) ?? .adminOnly
    }

    /// Requires a server admin.
    func requireServerAdmin(_ user: UserContext) throws {
        guard user.isServerAdmin else { throw HTTPFailure.unauthorized("You are not a server admin.") }
    }

    /// Rejects a method the route does not serve.
    func unsupported(_ allowed: String) -> HTTPFailure { .methodNotAllowed(allowed) }
}

/// The security object the request's gate read (``CouchEndpoint/route(_:)``), so the handler's access check
/// does not read it again within the same request.
enum CheckedSecurity {
    struct Entry: Sendable {
        var database: String
        var security: SecurityObject
    }

    @TaskLocal static var current: Entry?
}
