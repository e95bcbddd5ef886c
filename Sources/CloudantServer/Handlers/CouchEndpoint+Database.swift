internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `PUT|GET|HEAD|DELETE|POST /{db}`.
    func database(_ request: CouchRequest, name: String) async throws -> Response {
        switch request.method {
        case .put:
            try requireServerAdmin(request.user)
            try Self.checkCreationOptions(request.query)
            let partitioned: Bool
            switch request.query["partitioned"] {
            case nil, "false": partitioned = false
            case "true": partitioned = true
            default: throw HTTPFailure.badRequest("Invalid `partitioned` parameter")
            }
            if partitioned {
                // `couch_partition:validate_dbname/2`, once the name itself is known to be legal.
                guard DatabaseRegistry.isValidName(name) else { throw DatabaseRegistry.illegalName(name) }
                if DatabaseRegistry.isSystemDatabase(name) { throw HTTPFailure.badRequest("Cannot partition a system database") }
            }
            let store = try await registry.create(name)
            if partitioned { try await store.makePartitioned() }
            if let q = request.query["q"].flatMap({ Int($0) }) { try await store.setShardCount(q) }
            return CouchResponse.json(["ok": true], status: 201, headers: [("Location", request.absoluteURI("/" + URLEncoding.couchDB(name)))])
        case .delete:
            // `chttpd_db:handle_request/1`: a `?rev=` here is a document deletion whose id went missing.
            if request.query["rev"] != nil {
                throw HTTPFailure.badRequest(
                    "You tried to DELETE a database with a ?=rev parameter. Did you mean to DELETE a document instead?")
            }
            try requireServerAdmin(request.user)
            try await registry.delete(name)
            return CouchResponse.ok()
        case .get, .head:
            let store = try await authorizedStore(name, for: request.user, access: .member)
            // With per-document access the counts and sizes cover only what the user sees.
            let visibility = try await readAccess(of: store, for: request.user).visibility
            let info: JSONValue
            if let visibility { info = try await store.info(visibility: visibility).json } else { info = try await store.info().json }
            return request.method == .head ? CouchResponse.head(of: CouchResponse.json(info)) : CouchResponse.json(info)
        case .post:
            if name == usersDatabase, !request.user.isServerAdmin, let answer = try await userSignUp(request) {
                return answer
            }
            return try await postDocument(request, database: name)
        default:
            throw unsupported("DELETE,GET,HEAD,POST")  // `PUT` is handled before `db_req/2`, which lists the rest
        }
    }

    /// `chttpd_db:create_db_req/2`'s options, checked in its order: `n` and `q` positive integers
    /// (`parse_shards_opt/3`; `q` is kept and reported), `placement` a list of `zone:n` rules, and `engine` one
    /// this server has (CouchDB's only engine, `couch`).
    static func checkCreationOptions(_ query: QueryParameters) throws {
        for option in ["n", "q"] {
            if let value = query[option], !(Int(value).map { $0 > 0 } ?? false) {
                throw HTTPFailure.badRequest("The `\(option)` value should be a positive integer.")
            }
        }
        if let placement = query["placement"] {
            // `string:tokens/2` skips empty pieces; each rule must be two of them, the second a positive count.
            let rules = placement.split(separator: ",", omittingEmptySubsequences: true)
            let valid = !placement.isEmpty && rules.allSatisfy { rule in
                let parts = rule.split(separator: ":", omittingEmptySubsequences: true)
                return parts.count == 2 && (Int(parts[1]).map { $0 > 0 } ?? false)
            }
            guard valid else { throw HTTPFailure.badRequest("The `placement` value should be in a format `zone:n`.") }
        }
        if let engine = query["engine"], engine != "couch" {
            throw HTTPFailure(status: 400, error: "bad_request", reason: "invalid_engine_extension")
        }
    }

    /// `POST /{db}/_ensure_full_commit`: every commit is already durable, so this only answers as CouchDB
    /// does (201, and the database's `instance_start_time`, its creation time).
    func ensureFullCommit(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let started = try await store.info().instanceStartTime
        return CouchResponse.json(["ok": true, "instance_start_time": .string(started)], status: 201)
    }

    /// `POST /{db}/_compact`: runs compaction before answering 202.
    func compact(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .admin)
        try await store.compact()
        return CouchResponse.ok(status: 202)
    }

    /// `GET|PUT /{db}/_security`.
    func security(_ request: CouchRequest, database: String) async throws -> Response {
        switch request.method {
        case .get:
            let store = try await authorizedStore(database, for: request.user, access: .member)
            return CouchResponse.json(try await securityObject(of: store).json)
        case .put:
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            // CouchDB 3 keeps the authentication database's object as it is unless told otherwise: opening it
            // would let anonymous clients sign up.
            if database == nodeConfiguration.value("chttpd_auth", "authentication_db") ?? UsersDatabase.name,
                (nodeConfiguration.value("couchdb", "users_db_security_editable") ?? "false") == "false"
            {
                throw HTTPFailure.forbidden("You can't edit the security object of the user database.")
            }
            let object = try SecurityObject(json: try request.jsonBody())
            try await store.setSecurityObject(object.json)
            return CouchResponse.ok()
        default:
            throw unsupported("PUT,GET")
        }
    }

    /// `GET|PUT /{db}/_revs_limit`.
    func revsLimit(_ request: CouchRequest, database: String) async throws -> Response {
        switch request.method {
        case .get:
            let store = try await authorizedStore(database, for: request.user, access: .member)
            return CouchResponse.json(.number(JSONNumber(try await store.revsLimit())))
        case .put:
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            guard case .number(.integer(let limit)) = try request.jsonBody(), limit > 0 else {
                throw HTTPFailure.badRequest("Revs limit must be a positive integer.")  // CouchDB answers 500 (a crash)
            }
            try await store.setRevsLimit(Int(limit))
            return CouchResponse.ok()
        default:
            throw unsupported("PUT,GET")
        }
    }

    /// `POST /{db}/_revs_diff`, or with `answeringMissingRevs` `POST /{db}/_missing_revs`: the same question,
    /// answered as `{"missing_revs": {id: [revisions]}}` without `possible_ancestors` (`chttpd_db`'s clause
    /// over `fabric:get_missing_revs/2`); either lists only the documents that miss a revision.
    func revsDiff(_ request: CouchRequest, database: String, answeringMissingRevs: Bool = false) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        var query: [String: [String]] = [:]
        for (id, value) in try request.jsonObjectBody().members {
            guard let list = value.arrayValue else {
                throw HTTPFailure.badRequest("Revisions for \(id) must be a JSON list.")  // CouchDB: 500 (a crash)
            }
            let revs = list.compactMap(\.stringValue)
            guard revs.count == list.count else { throw HTTPFailure.badRequest("Revisions must be strings.") }
            query[id] = revs
        }
        let diff: [String: RevisionDiff]
        do {
            diff = try await store.revsDiff(query)
        } catch let error as CloudantError where error.code == .invalidInput {
            throw HTTPFailure.badRequest("Invalid rev format")
        }
        // Answer in request order. A document the user may not see has, for them, none of the revisions.
        let access = try await readAccess(of: store, for: request.user)
        var ordered: [(String, JSONValue)] = []
        for id in try request.jsonObjectBody().keys {
            if access.isRestricted, !(try await access.allowsDocument(id: id, in: store)) {
                let missing = JSONValue.array((query[id] ?? []).map(JSONValue.string))
                ordered.append((id, answeringMissingRevs ? missing : ["missing": missing]))
            } else if let entry = diff[id] {
                ordered.append((id, answeringMissingRevs ? entry.json["missing"] ?? [] : entry.json))
            }
        }
        if answeringMissingRevs { return CouchResponse.json(["missing_revs": .object(JSONObject(ordered))]) }
        return CouchResponse.json(.object(JSONObject(ordered)))
    }
}
