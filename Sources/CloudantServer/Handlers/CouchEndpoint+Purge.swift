internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `POST /{db}/_purge` `{"docid": ["rev", …], …}` (server admins, as `chttpd_auth_request` requires):
    /// removes the leaf revisions named, as if they had never been written, and answers CouchDB's
    /// `{"purge_seq": null, "purged": {"docid": [revisions removed], …}}` with 201 — every id named appears,
    /// with `[]` when nothing of it was removed.
    ///
    /// - Throws: ``HTTPFailure`` `400` for a value that is not a list of revisions, a malformed revision, or
    ///   more revisions than `purge/max_revisions_number` when it is set (CouchDB 3.5 has no limit by default
    ///   and none on the number of documents).
    func purge(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try requireServerAdmin(request.user)
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .admin)
        let body = try request.jsonObjectBody()
        var named: [(String, [String])] = []
        for (id, value) in body.members { named.append((id, try Self.revisionList(value))) }
        if let setting = nodeConfiguration.value("purge", "max_revisions_number"), setting != "infinity", let limit = Int(setting),
            named.reduce(0, { $0 + $1.1.count }) > limit
        {
            throw HTTPFailure.badRequest("Exceeded maximum number of revisions.")
        }
        // A partitioned database's ids are `partition:id` here too (`fabric_doc_purge` checks them).
        if try await store.isPartitioned() {
            for (id, _) in named { try DocumentPartition.validateDocumentID(id) }
        }
        let purged = try await store.purge(Dictionary(named, uniquingKeysWith: { $0 + $1 }))
        let results = JSONObject(named.map { id, _ in (id, .array((purged[id] ?? []).map { .string($0) })) })
        return CouchResponse.json(["purge_seq": .null, "purged": .object(results)], status: 201)
    }

    /// `GET /{db}/_purged_infos`: `{"purged_infos": [{"id", "revs"}, …]}`, the purges the database keeps.
    func purgedInfos(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET") }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let infos = try await store.purgedInfos().map { info -> JSONValue in
            ["id": .string(info.id), "revs": .array(info.revs.map { .string($0) })]
        }
        return CouchResponse.json(["purged_infos": .array(infos)])
    }

    /// `GET|PUT /{db}/_purged_infos_limit`: how many purges the database keeps (default 1000); setting it
    /// needs a server admin and a positive integer.
    func purgedInfosLimit(_ request: CouchRequest, database: String) async throws -> Response {
        switch request.method {
        case .get, .head:
            let store = try await authorizedStore(database, for: request.user, access: .member)
            return CouchResponse.json(.number(JSONNumber(try await store.purgedInfosLimit())))
        case .put:
            try requireServerAdmin(request.user)
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            // `is_integer(Limit), Limit > 0`: `5.0` is a float, not a limit.
            guard case .number(.integer(let limit)) = try request.jsonBody(), limit > 0 else {
                throw HTTPFailure.badRequest("`purged_infos_limit` must be positive integer")
            }
            try await store.setPurgedInfosLimit(Int(limit))
            return CouchResponse.ok()
        default:
            throw unsupported("GET,PUT")
        }
    }
}
