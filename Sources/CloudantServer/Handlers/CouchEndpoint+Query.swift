internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `POST /{db}/_find` (spec §3.1); query errors keep CouchDB's names (spec §3.10).
    func find(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let result = try await store.find(
            try FindRequest(try request.jsonBody()), limits: MatchLimits(regexStepLimit: configuration.regexStepLimit))
        return CouchResponse.json(result.json)
    }

    /// `POST /{db}/_explain`.
    func explain(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        return CouchResponse.json(try await store.explain(try FindRequest(try request.jsonBody())))
    }

    /// `GET|POST /{db}/_index`, `POST /{db}/_index/_bulk_delete` and
    /// `DELETE /{db}/_index/{ddoc}/{type}/{name}` (spec §3.1).
    func index(_ request: CouchRequest, database: String, path: [String]) async throws -> Response {
        switch (request.method, path.count) {
        case (.get, 0):
            let store = try await authorizedStore(database, for: request.user, access: .member)
            var listing = try await store.indexListingJSON()
            let all = listing["indexes"]?.arrayValue ?? []
            let skip = max(0, try request.query.int("skip") ?? 0)
            let limit = max(0, try request.query.int("limit") ?? Int.max)
            if var object = listing.objectValue {
                object["indexes"] = .array(Array(all.dropFirst(skip).prefix(limit)))
                listing = .object(object)
            }
            return CouchResponse.json(listing)
        case (.post, 0):
            try request.requireJSONContentType()
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            let created = try await store.createIndex(try IndexDefinition(indexRequest: try request.jsonBody()))
            return CouchResponse.json(created.json)
        case (.post, 1) where path[0] == "_bulk_delete":
            try request.requireJSONContentType()
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            guard let ids = try request.jsonObjectBody()["docids"]?.arrayValue?.compactMap(\.stringValue) else {
                throw HTTPFailure.badRequest("Bulk delete requires a JSON list of `docids`.")
            }
            return CouchResponse.json(try await bulkDeleteIndexes(ids, in: store))
        case (.delete, 3), (.delete, 4):
            // `_design/` is optional in the path: `/_index/_design/x/json/y` or `/_index/x/json/y`.
            let parts = path.count == 4 && path[0] == "_design" ? Array(path.dropFirst()) : path
            guard parts.count == 3, let type = IndexDefinition.IndexType(rawValue: parts[1]) else {
                throw HTTPFailure.notFound("Index not found.")
            }
            let store = try await authorizedStore(database, for: request.user, access: .admin)
            try await store.deleteIndex(designDocument: parts[0], name: parts[2], type: type)
            return CouchResponse.ok()
        default:
            throw unsupported("GET,POST,DELETE")
        }
    }

    /// Deletes every index of each design document listed.
    private func bulkDeleteIndexes(_ ids: [String], in store: DocumentStore) async throws -> JSONValue {
        let indexes = try await store.indexes()
        var success: [JSONValue] = []
        var fail: [JSONValue] = []
        for id in ids {
            let designID = id.hasPrefix("_design/") ? id : "_design/" + id
            let declared = indexes.filter { $0.designDocumentID == designID }
            guard !declared.isEmpty else {
                fail.append(["id": .string(id), "error": "not_found"])
                continue
            }
            do {
                for index in declared { try await store.deleteIndex(designDocument: designID, name: index.name, type: index.type) }
                success.append(["id": .string(id), "ok": true])
            } catch let error as CloudantError {
                fail.append(["id": .string(id), "error": .string(CouchErrorBody(error).error)])
            }
        }
        return ["success": .array(success), "fail": .array(fail)]
    }
}
