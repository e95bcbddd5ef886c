internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `/{db}/_design/{ddoc}/_view/{view}` (GET, POST) and `…/_view/{view}/queries` (POST), as CouchDB 3.5's
    /// `chttpd_view` answers them.
    ///
    /// - Parameter partition: From `/{db}/_partition/{partition}/_design/…`.
    func view(
        _ request: CouchRequest, database: String, designDocument: String, path: [String], partition: String? = nil
    ) async throws -> Response {
        let store = try await authorizedStore(database, for: request.user, access: .member)
        switch (request.method, path.count) {
        case (.post, 2) where path[1] == "queries":
            try request.requireJSONContentType()
            let prepared = try Self.multipleQueries(request, partition: partition)
            var results: [JSONValue] = []
            for query in prepared {
                results.append(try await answer(query, store: store, designDocument: designDocument, view: path[0], user: request.user))
            }
            return CouchResponse.json(["results": .array(results)])
        case (_, 2) where path[1] == "queries":
            throw unsupported("POST")
        case (.get, 1), (.head, 1):
            let query = try Self.viewQuery(queryString: request.query, partition: partition)
            let answer = try await answer(query, store: store, designDocument: designDocument, view: path[0], user: request.user)
            return request.method == .head ? CouchResponse.headOnly() : CouchResponse.json(answer)
        case (.post, 1):
            try request.requireJSONContentType()
            let body = try request.jsonObjectBody()
            if body["queries"] != nil {
                throw HTTPFailure.badRequest("The `queries` parameter is no longer supported at this endpoint")
            }
            if let keys = body["keys"], keys.arrayValue == nil { throw HTTPFailure.badRequest("`keys` member must be an array.") }
            // Body members first, then the query string's, which win (below a `_partition` path it holds the
            // path's partition, so that wins over the body's).
            var query = ViewQuery()
            for (name, value) in body.members { try query.apply(name, .json(value)) }
            for (name, value) in request.query.ordered { try query.apply(name, .text(value)) }
            let answer = try await answer(query, store: store, designDocument: designDocument, view: path[0], user: request.user)
            return CouchResponse.json(answer)
        default:
            throw unsupported("GET,POST,HEAD")
        }
    }

    /// The queries of a `…/queries` request's body (`couch_mrview_util:get_view_queries/1`): each starts from
    /// the query string's parameters, its keys and grouping its own, then reads its own members.
    /// - Throws: `bad_request` "POST body must include `queries` parameter." or "`queries` member must be an array.".
    static func multipleQueries(_ request: CouchRequest, partition: String?) throws -> [ViewQuery] {
        let body = try request.jsonObjectBody()
        guard let queries = body["queries"] else { throw HTTPFailure.badRequest("POST body must include `queries` parameter.") }
        guard case .array(let list) = queries else { throw HTTPFailure.badRequest("`queries` member must be an array.") }
        let base = try viewQuery(queryString: request.query, partition: partition)
        return try list.map { entry in
            var query = base
            query.keys = nil
            (query.group, query.groupLevel) = (nil, nil)
            for (name, value) in entry.objectValue?.members ?? [] { try query.apply(name, .json(value)) }
            return query
        }
    }

    /// A view query from a URL's query string and the partition of a `_partition` path, which replaces every
    /// `partition` the query string gives: `chttpd_db:handle_partition_req` refused one that differs from the
    /// path (its first) and rewrote the query string to hold the path's once.
    /// - Parameter start: What the query holds before the query string is read (a body's parameters).
    static func viewQuery(queryString: QueryParameters, partition: String?, from start: ViewQuery = ViewQuery()) throws -> ViewQuery {
        var query = start
        for (name, value) in queryString.ordered where partition == nil || name != "partition" {
            try query.apply(name, .text(value))
        }
        if let partition { query.partition = partition }
        return query
    }

    /// One view answer. A user restricted by per-document access sees only rows of documents visible to
    /// them, and no reductions (they would count what is hidden).
    private func answer(
        _ query: ViewQuery, store: DocumentStore, designDocument: String, view: String, user: UserContext
    ) async throws -> JSONValue {
        let access = try await readAccess(of: store, for: user)
        let limits = nodeConfiguration.queryLimits
        guard access.isRestricted else {
            return try await store.queryView(designDocument: designDocument, view: view, query: query, limits: limits).json
        }
        // The visible rows are paged here, so the ceiling is applied here: a query holds a partition exactly when
        // its view is partitioned (the store refuses any other).
        var query = query
        query.limit = try limits.limit(query.limit, partitioned: query.partition != nil)
        var unlimited = query
        (unlimited.skip, unlimited.limit, unlimited.includeDocs) = (0, nil, true)
        unlimited.conflicts = unlimited.conflicts ?? false
        let all = try await store.queryView(designDocument: designDocument, view: view, query: unlimited)
        guard all.totalRows != nil else {
            throw HTTPFailure.forbidden("Reduced views are not available to users restricted by per-document access.")
        }
        var visible: [ViewRow] = []
        for row in all.rows {
            guard let id = row.id, try await access.allowsDocument(id: id, in: store) else { continue }
            var shown = row
            if !query.includeDocs { shown.document = nil }
            visible.append(shown)
        }
        let page = Array(visible.dropFirst(query.skip).prefix(query.limit ?? Int.max))
        return ViewResult(totalRows: visible.count, offset: query.skip, updateSeq: all.updateSeq, rows: page).json
    }

    /// `GET /{db}/_design/{ddoc}/_info`: the design document's name and its view index's state.
    func designInfo(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET") }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let info = try await store.viewIndexInfo(designDocument: id)
        let body: JSONValue = ["name": .string(String(id.dropFirst("_design/".count))), "view_index": info.json]
        return request.method == .head ? CouchResponse.headOnly() : CouchResponse.json(body)
    }

    /// `POST /{db}/_view_cleanup`: removes view indexes no design document uses.
    func viewCleanup(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        let store = try await authorizedStore(database, for: request.user, access: .admin)
        try await store.cleanupViewIndexes()
        return CouchResponse.ok(status: 202)
    }

    /// `POST /{db}/_compact/{ddoc}`: compacts a design document's view index.
    func compactDesign(_ request: CouchRequest, database: String, designDocument: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .admin)
        try await store.compactViewIndex(designDocument: designDocument)
        return CouchResponse.ok(status: 202)
    }
}
