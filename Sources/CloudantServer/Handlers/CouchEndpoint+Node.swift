internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// The one node of this server (``ServerConfiguration/nodeName``).
    var nodeName: String { configuration.nodeName }

    /// `GET /_membership` (server admins): the node list of a one-node cluster.
    func membership(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET") }
        try requireServerAdmin(request.user)
        let nodes: JSONValue = [.string(nodeName)]
        return CouchResponse.json(["all_nodes": nodes, "cluster_nodes": nodes])
    }

    /// `GET /_active_tasks` (server admins): running tasks, CouchDB's list: replications (which report here
    /// and in `/_scheduler/jobs`) and view index updates (`indexer`, ``indexerTasks()``).
    func activeTasks(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        try requireServerAdmin(request.user)
        return CouchResponse.json(.array(replicationTasks() + indexerTasks()))
    }

    /// The view index updates running in the open databases, as `couch_mrview_updater` reports them to
    /// `couch_task_status`. `database` is the database's name: this server keeps one file per database, not
    /// CouchDB's shard files.
    func indexerTasks() -> [JSONValue] {
        registry.openStores().flatMap { database in
            database.store.activeViewIndexTasks.map { task -> JSONValue in
                // An Erlang-style pid per update, as CouchDB prints its processes' (the updater's and the task's).
                let number = abs((database.name + task.designDocument).hashValue % 10_000)
                return [
                    "node": .string(nodeName),
                    "pid": .string("<0.\(number).0>"),
                    "process_status": "running",
                    "indexer_pid": .string("<0.\(number + 1).0>"),
                    "type": "indexer",
                    "database": .string(database.name),
                    "design_document": .string(task.designDocument),
                    "progress": .number(JSONNumber(task.progress)),
                    "changes_done": .number(JSONNumber(task.changesDone)),
                    "total_changes": .number(JSONNumber(task.totalChanges)),
                    "started_on": .number(JSONNumber(Int(task.startedOn.timeIntervalSince1970))),
                    "updated_on": .number(JSONNumber(Int(task.updatedOn.timeIntervalSince1970))),
                ]
            }
        }
    }

    /// `/_node/{node}/…`, `{node}` being this node's name or `_local` (`chttpd_node`): `_config`, `_stats`,
    /// `_system`, `_versions`; `/_node/_local` alone names the node.
    func node(_ request: CouchRequest) async throws -> Response {
        let parts = Array(request.segments.dropFirst())
        guard let named = parts.first else { throw HTTPFailure.badRequest("Incomplete path to _node request") }
        if named == "_local", parts.count == 1 { return CouchResponse.json(["name": .string(nodeName)]) }
        guard named == "_local" || named == nodeName else {
            throw HTTPFailure(status: 404, error: "not_found", reason: "no such node: \(named)")
        }
        let rest = Array(parts.dropFirst())
        // `chttpd` answers every `HEAD` as its `GET` without the body.
        if request.method == .head, let first = rest.first, ["_config", "_stats", "_system", "_versions"].contains(first) {
            var get = request
            get.method = .get
            return CouchResponse.head(of: try await node(get))
        }
        switch rest.first {
        case "_config": return try await config(request, path: Array(rest.dropFirst()))
        case "_stats":
            guard request.method == .get else { throw unsupported("GET") }
            try requireMetrics(request.user)
            // A path the statistics do not have is `null` (`couch_stats_httpd:extract_path/2`).
            var stats = statistics.json
            for key in rest.dropFirst() { stats = stats[key] ?? .null }
            return CouchResponse.json(stats)
        case "_system":
            guard request.method == .get else { throw unsupported("GET") }
            try requireMetrics(request.user)
            return CouchResponse.json(systemStatistics())
        case "_versions":
            guard request.method == .get else { throw unsupported("GET") }
            try requireServerAdmin(request.user)
            // CouchDB's `collation_driver` (the same ICU collator, so the same names: `chttpd_node:get_versions/0`)
            // and `javascript_engine` (none without a design-function engine; no `erlang`: there is none), then
            // this server's own names.
            var versions: JSONObject = [
                "collation_driver": [
                    "name": "libicu", "library_version": .string(Collation.libraryVersion),
                    "collation_algorithm_version": .string(Collation.algorithmVersion),
                    "collator_version": .string(Collation.version),
                ]
            ]
            if let engine = configuration.designFunctions { versions["javascript_engine"] = engine.engineDescription }
            versions["couchdb"] = ["version": .string(Self.couchDBVersion)]
            versions["vendor"] = ["name": "OTFCloudantStore", "version": .string(CloudantVersion.current)]
            return CouchResponse.json(.object(versions))
        default:
            // `/_node/{node}/…` is the node's own HTTP API in CouchDB (`chttpd_node` passes the rest of the path
            // to `couch_httpd`), `/_node/{node}` alone its welcome; here that API is the clustered one.
            var inner = request
            inner.segments = rest
            return try await route(inner)
        }
    }

    /// `_stats` and `_system` are for server admins and users with the `_metrics` role.
    func requireMetrics(_ user: UserContext) throws {
        guard user.isServerAdmin || user.roles.contains("_metrics") else {
            throw HTTPFailure.unauthorized("You are not a server admin or read-only metrics user")
        }
    }

    private func systemStatistics() -> JSONValue {
        let info = ProcessInfo.processInfo
        return [
            "uptime": .number(JSONNumber(Int(Date().timeIntervalSince(statistics.started)))),
            "memory": ["other": 0, "atom": 0, "atom_used": 0, "processes": 0, "processes_used": 0, "binary": 0, "code": 0, "ets": 0],
            "run_queue": 0, "run_queue_dirty_cpu": 0, "ets_table_count": 0, "context_switches": 0, "reductions": 0,
            "garbage_collection_count": 0, "words_reclaimed": 0, "io_input": 0, "io_output": 0, "os_proc_count": 0,
            "stale_proc_count": 0, "process_count": .number(JSONNumber(info.activeProcessorCount)),
            "process_limit": 0, "message_queues": [:], "internal_replication_jobs": 0, "distribution": [:],
        ]
    }

    /// `/_node/{node}/_config[/section[/key]]` (server admins; `chttpd_node`): the whole configuration, a
    /// section, or a value to read, set (`PUT` with a JSON string, answering the value it replaced) or
    /// delete. `X-Couch-Persist: false` sets a value for this run only. An admin's password set in clear text
    /// is kept hashed (``AdminPasswords``).
    private func config(_ request: CouchRequest, path: [String]) async throws -> Response {
        try requireServerAdmin(request.user)
        let settings = nodeConfiguration
        switch path.count {
        case 0:
            guard request.method == .get else { throw unsupported("GET") }
            return CouchResponse.json(Self.object(sections: settings.all().mapValues(Self.object(strings:))))
        case 1 where path[0] == "_reload":
            guard request.method == .post else { throw unsupported("POST") }
            return CouchResponse.ok()
        case 1:
            guard request.method == .get else { throw unsupported("GET") }
            return CouchResponse.json(Self.object(strings: settings.section(path[0])))
        case 2:
            let (section, key) = (path[0], path[1])
            let persist = request.header(HTTPField.Name("X-Couch-Persist")!) != "false"
            switch request.method {
            case .get:
                guard let value = settings.value(section, key) else {
                    throw HTTPFailure(status: 404, error: "not_found", reason: "unknown_config_value")
                }
                return CouchResponse.json(.string(value))
            case .put:
                try Self.checkBlacklist(section)
                guard case .string(let text) = try request.jsonBody() else {
                    throw HTTPFailure.badRequest("a JSON string expected")
                }
                try checkSettable(section, key)
                var value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if section == "admins", !AdminPasswords.isHashed(value) {
                    value = try await adminPasswordHash(of: value, client: request.clientAddress)
                }
                let old = try settings.set(section, key, to: value, persist: persist)
                applyNodeConfiguration()
                return CouchResponse.json(.string(old))
            case .delete:
                try Self.checkBlacklist(section)
                try checkSettable(section, key)
                guard let old = try settings.delete(section, key, persist: persist) else {
                    throw HTTPFailure(status: 404, error: "not_found", reason: "unknown_config_value")
                }
                applyNodeConfiguration()
                return CouchResponse.json(.string(old))
            default:
                throw unsupported("GET,PUT,DELETE")
            }
        default:
            throw HTTPFailure.notFound()
        }
    }

    /// Carries the settings that live outside the configuration object (the session timeout) over to
    /// where they apply.
    func applyNodeConfiguration() {
        authenticator.setSessionTimeout(nodeConfiguration.sessionTimeout)
        registry.setMaxPartitionSize(nodeConfiguration.maxPartitionSize)
    }

    private static func checkBlacklist(_ section: String) throws {
        guard !NodeConfiguration.blacklistedSections.contains(section) else {
            throw HTTPFailure.forbidden("Config section blacklisted for modification over HTTP API.")
        }
    }

    /// The admin given when the server starts (`--admin`) is not changed over HTTP; other admins are. The
    /// iterations of new password hashes stay within what a login here computes.
    private func checkSettable(_ section: String, _ key: String) throws {
        if section == "admins", key == authenticator.startupAdmin?.name {
            throw HTTPFailure.forbidden("This admin is set when the server starts (cloudant serve --admin), not over HTTP.")
        }
    }

    /// The configuration value of an admin's password: its PBKDF2 hash with the configured iterations and PRF,
    /// derived on the hashing threads.
    private func adminPasswordHash(of password: String, client: String?) async throws -> String {
        let (iterations, prf) = (nodeConfiguration.passwordIterations, nodeConfiguration.passwordPRF)
        guard authenticator.allowedIterations.contains(iterations) else {
            throw HTTPFailure.badRequest(
                "chttpd_auth/iterations is \(iterations), more than a login here computes (\(authenticator.allowedIterations.upperBound)).")
        }
        do {
            let hash = try await hashing.run(client: client) {
                Result { try PasswordHasher.hash(password, iterations: iterations, prf: prf) }
            }.get()
            return AdminPasswords.value(of: hash)
        } catch let refusal as PasswordHashingPool.Refusal {
            throw HTTPFailure.hashingBusy(refusal)
        }
    }

    private static func object(strings values: [String: String]) -> JSONValue {
        .object(JSONObject(values.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    }

    private static func object(sections: [String: JSONValue]) -> JSONValue {
        .object(JSONObject(sections.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// `GET /_dbs_info` (every database, as `_all_dbs` pages them) and `POST /_dbs_info` with `{"keys": […]}`
    /// (at most `chttpd/max_db_number_for_dbs_info_req`, 100): `[{"key", "info"}]`, and `{"key", "error": "not_found"}`
    /// for a key that names no database.
    /// Who may ask is ``RequestAuthorization``'s (server admins unless `chttpd/admin_only_all_dbs` is false).
    func databasesInfo(_ request: CouchRequest) async throws -> Response {
        guard [.get, .head, .post].contains(request.method) else { throw unsupported("GET,HEAD,POST") }
        // `handle_dbs_info_req/1`: a longer path is no resource at all.
        guard request.segments.count == 1 else { throw HTTPFailure(status: 404, error: "not_found", reason: "missing") }
        guard request.method == .post else {
            // An `_all_docs` of the databases: names that cannot be opened are left out.
            let names = DatabaseNamePage.names(try registry.names(), query: try DatabaseNamePage.query(request))
            var rows: [JSONValue] = []
            for name in names {
                if let store = try? await registry.store(name), let info = try? await store.info() {
                    rows.append(["key": .string(name), "info": info.json])
                }
            }
            return CouchResponse.json(.array(rows))
        }
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        guard let keys = body["keys"] else { throw HTTPFailure.badRequest("`keys` member must exist.") }
        guard let list = keys.arrayValue else { throw HTTPFailure.badRequest("`keys` member must be an array.") }
        let most = Int(nodeConfiguration.value("chttpd", "max_db_number_for_dbs_info_req") ?? "") ?? 100
        guard list.count <= most else { throw HTTPFailure.badRequest("too_many_keys") }
        // Every key is answered, as given: one that names no database (a number, a missing name) is not_found.
        var rows: [JSONValue] = []
        for key in list {
            if let name = key.stringValue, let store = try? await registry.store(name), let info = try? await store.info() {
                rows.append(["key": key, "info": info.json])
            } else {
                rows.append(["key": key, "error": "not_found"])
            }
        }
        return CouchResponse.json(.array(rows))
    }
}
