internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `POST /{db}/_find`; query errors keep CouchDB's names.
    ///
    /// - Parameter partition: From `/{db}/_partition/{partition}/_find`.
    /// With `?feed=eventsource|continuous` the query is live (see ``liveFind(_:database:partition:)``).
    func find(_ request: CouchRequest, database: String, partition: String? = nil) async throws -> Response {
        if request.query.contains("feed") { return try await liveFind(request, database: database, partition: partition) }
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        // With per-document access the store judges each candidate before the selector runs on it, so the
        // answer, its errors, `execution_stats` and its time only ever concern documents the user sees.
        let visibility = try await readAccess(of: store, for: request.user).visibility
        let answer = try await store.findAnswer(
            try Self.findRequest(request.jsonObjectBody(), partition: partition ?? request.query["partition"]),
            limits: findLimits, visibility: visibility)
        return CouchResponse.json(bytes: answer)
    }

    /// The bounds of a `_find`, one-shot or live: the node's `$regex` step limit and its `query_limit` on the
    /// rows the scan reads.
    var findLimits: MatchLimits {
        MatchLimits(regexStepLimit: configuration.regexStepLimit, indexRowLimit: nodeConfiguration.queryLimits.mangoIndexRowLimit)
    }

    /// `POST /{db}/_explain` (and `/{db}/_partition/{partition}/_explain`).
    func explain(_ request: CouchRequest, database: String, partition: String? = nil) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        return CouchResponse.json(
            try await store.explain(try Self.findRequest(request, partition: partition ?? request.query["partition"])))
    }

    /// The request body as a `FindRequest`; a partition from the path or the query string (`?partition=`) goes
    /// into the body, where one already there must name the same partition (`mango_httpd:maybe_set_partition/1`).
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a body that is not a JSON object or names another
    ///   partition.
    static func findRequest(_ request: CouchRequest, partition: String?) throws -> FindRequest {
        try findRequest(request.jsonObjectBody(), partition: partition)
    }

    /// A `_find` body as a `FindRequest` (see ``findRequest(_:partition:)``).
    static func findRequest(_ body: JSONObject, partition: String?) throws -> FindRequest {
        var body = body
        if let partition {
            switch body["partition"] {
            case nil: body["partition"] = .string(partition)
            case .string(partition)?: break
            default: throw HTTPFailure.badRequest("The `partition` in the body differs from the one in the path.")
            }
        }
        var find = try FindRequest(.object(body))
        // Over HTTP, a sort no index serves is CouchDB's `no_usable_index` once the database has JSON
        // indexes, so an application sees here the errors CouchDB would give it (README, compatibility).
        find.unservedSort = .refuseOnceIndexed
        return find
    }

    /// `/{db}/_index…` as CouchDB's `mango_httpd` lays it out: `GET|POST /{db}/_index`,
    /// `POST /{db}/_index/_bulk_delete`, `DELETE /{db}/_index/[_design/]{ddoc}/{type}/{name}`; other methods on
    /// those paths are 405, any other path is 404.
    func index(_ request: CouchRequest, database: String, path: [String]) async throws -> Response {
        var path = path
        if path.count == 4, path[0] == "_design" { path = ["_design/" + path[1], path[2], path[3]] }
        switch path.count {
        case 0:
            switch request.method {
            case .get: return try await listIndexes(request, database: database)
            case .post:
                try request.requireJSONContentType()
                let store = try await authorizedStore(database, for: request.user, access: .admin)
                let created = try await store.createIndex(try IndexDefinition(indexRequest: .object(try request.jsonObjectBody())))
                return CouchResponse.json(created.json)
            default: throw unsupported("GET,POST")
            }
        case 1 where path[0] == "_bulk_delete":
            guard request.method == .post else { throw unsupported("POST") }
            try request.requireJSONContentType()
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            let deletion = try BulkIndexDeletion(try request.jsonObjectBody())
            return CouchResponse.json(try await bulkDeleteIndexes(deletion.designDocumentIDs, in: store))
        case 3:
            guard request.method == .delete else { throw unsupported("DELETE") }
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            guard let type = IndexDefinition.IndexType(rawValue: path[1]) else { throw HTTPFailure.notFound() }
            do {
                try await store.deleteIndex(designDocument: path[0], name: path[2], type: type)
            } catch let error as CloudantError where error.queryErrorKind == .indexNotFound {
                throw HTTPFailure.notFound()
            }
            return CouchResponse.ok()
        default:
            throw HTTPFailure.notFound()
        }
    }

    /// `GET /{db}/_index?limit=&skip=`: CouchDB answers a limit below 1, a negative skip or a value that
    /// is not an integer with `500 invalid_list_index_params`; a skip past the end lists nothing.
    private func listIndexes(_ request: CouchRequest, database: String) async throws -> Response {
        let store = try await authorizedStore(database, for: request.user, access: .member)
        var listing = try await store.indexListingJSON()
        let all = listing["indexes"]?.arrayValue ?? []
        let invalid = HTTPFailure(
            status: 500, error: "invalid_list_index_params", reason: "Index parameter ranges: limit > 1, skip > 0")
        func integer(_ name: String) throws -> Int? {
            guard let text = request.query[name] else { return nil }
            guard let value = Int(text) else { throw invalid }
            return value
        }
        let limit = try integer("limit") ?? all.count
        let skip = try integer("skip") ?? 0
        guard limit >= 1, skip >= 0 else { throw invalid }
        if var object = listing.objectValue {
            object["indexes"] = .array(Array(all.dropFirst(skip).prefix(limit)))
            listing = .object(object)
        }
        return CouchResponse.json(listing)
    }

    /// Deletes every index of each design document listed (`_design/…`). CouchDB gathers the answers by
    /// putting each in front of the ones before, so `success` and `fail` list the last request entry first.
    /// A design document holding several indexes loses them all (CouchDB's handler fails on one).
    private func bulkDeleteIndexes(_ ids: [String], in store: DocumentStore) async throws -> JSONValue {
        let indexes = try await store.indexes()
        var success: [JSONValue] = []
        var fail: [JSONValue] = []
        for designID in ids {
            let declared = indexes.filter { $0.designDocumentID == designID }
            guard !declared.isEmpty else {
                fail.append(["id": .string(designID), "error": "not_found"])
                continue
            }
            do {
                for index in declared { try await store.deleteIndex(designDocument: designID, name: index.name, type: index.type) }
                success.append(["id": .string(designID), "ok": true])
            } catch let error as CloudantError {
                fail.append(["id": .string(designID), "error": .string(CouchErrorBody(error).error)])
            }
        }
        return ["success": .array(success.reversed()), "fail": .array(fail.reversed())]
    }
}
