internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `/{db}/_design/{ddoc}/_list/{list}/{view}` and `…/_list/{list}/{other-ddoc}/{view}` (GET, POST), as
    /// CouchDB 3.5 serves them: the view (or `_all_docs`) is queried with the request's parameters, then the
    /// list function gets the head (`total_rows`, `offset`, `update_seq` when known) and the request, reads the
    /// rows with `getRow()`, and what it sends is the body, after the code and headers it gave `start()`.
    ///
    /// Below `/{db}/_partition/{partition}` the query string holds the path's partition (see
    /// ``QueryParameters/rewritten(forPartition:)``), so the view is read in it.
    func list(
        _ request: CouchRequest, database: String, store: DocumentStore, ddoc: JSONObject, path: [String]
    ) async throws -> Response {
        guard [.get, .post, .head, .options].contains(request.method) else { throw unsupported("GET,POST,HEAD") }
        guard path.count == 2 || path.count == 3 else {
            throw HTTPFailure(status: 404, error: "list_error", reason: "Invalid path.")
        }
        let name = path[0]
        try Self.requireMember(ddoc, ["lists", name])
        var query = ViewQuery()
        var parsedBody: JSONValue?
        if request.method == .post {
            try request.requireJSONContentType()
            let body = try request.jsonObjectBody()
            for (key, value) in body.members { try query.apply(key, .json(value)) }
            // `chttpd_show:handle_view_list_req` hands the list the parsed body as `req.body`.
            parsedBody = .object(body)
        }
        for (key, value) in request.query.ordered { try query.apply(key, .text(value)) }
        let viewDesign = path.count == 3 ? path[1] : String((ddoc["_id"]?.stringValue ?? "").dropFirst("_design/".count))
        let viewName = path[path.count - 1]
        let result =
            viewName == "_all_docs"
            ? try await Self.allDocsAsView(query, store: store, limits: nodeConfiguration.queryLimits)
            : try await store.queryView(
                designDocument: viewDesign, view: viewName, query: query, limits: nodeConfiguration.queryLimits)
        var head = JSONObject()
        if let total = result.totalRows { head["total_rows"] = .number(JSONNumber(total)) }
        if let offset = result.offset { head["offset"] = .number(JSONNumber(offset)) }
        if let seq = result.updateSeq { head["update_seq"] = .number(JSONNumber(seq)) }
        let runtime = try designRuntime(language: ddoc["language"]?.stringValue ?? "javascript")
        let requestObject = try await self.requestObject(request, store: store, database: database, parsedBody: parsedBody)
        let session = ListRows(rows: result.rows.map(Self.listRow))
        let answer: JSONValue
        do {
            answer = try runtime.callDesignFunction(
                ddoc, path: ["lists", name], arguments: [.object(head), .object(requestObject)], session: session)
        } catch let failure where session.askedForRow {
            return try Self.listFailure(failure, after: session)
        }
        guard case .array(let parts) = answer, parts.count >= 2, parts[0] == "end", case .array(let tail) = parts[1] else {
            throw HTTPFailure(status: 500, error: "render_error", reason: "undefined response from list function")
        }
        session.take(tail.map { $0.stringValue ?? $0.jsonString() }, start: parts.count > 2 ? parts[2].objectValue : nil)
        // `couch_mrview_show:last_chunk/2`: a list that never sent a non-empty batch of chunks never started its
        // response, and CouchDB answers a bare 200 without the code and headers `start()` gave.
        guard session.started else { return CouchResponse.exact([], status: 200, headers: []) }
        return try session.response(status: nil).response()
    }

    /// A list function that failed once it had asked for rows: `couch_mrview_show:send_list_row/2` catches the
    /// failure and ends the response with CouchDB's chunked error line (`chttpd:send_chunked_error/2`),
    /// after what the function had sent; a response not started yet starts with the error's status and the
    /// list's headers. (A failure before the first `getRow()` is an ordinary error response.)
    private static func listFailure(_ error: any Error, after session: ListRows) throws -> Response {
        let failure = (error as? HTTPFailure)?.body ?? CouchErrorBody(error)
        let line: JSONValue = ["code": .number(JSONNumber(failure.status)), "error": .string(failure.error), "reason": .string(failure.reason)]
        var response = try session.response(status: session.started ? nil : failure.status)
        response.body += [10] + line.jsonBytes() + [10]
        return response.response()
    }

    /// A list row: the members the view row has (`id`, `key`, `value`, `doc`).
    private static func listRow(_ row: ViewRow) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let id = row.id { members.append(("id", .string(id))) }
        members.append(("key", row.key))
        members.append(("value", row.value))
        if let document = row.document { members.append(("doc", document)) }
        return .object(JSONObject(members))
    }

    /// `_all_docs` read with a view query's parameters, as view rows.
    static func allDocsAsView(_ query: ViewQuery, store: DocumentStore, limits: QueryLimits) async throws -> ViewResult {
        let limit = try limits.limit(query.limit, partitioned: false)
        var options = AllDocsOptions(
            inclusiveEnd: query.inclusiveEnd, descending: query.descending, limit: limit, skip: query.skip,
            includeDocs: query.includeDocs, conflicts: query.conflicts ?? false, updateSeq: query.updateSeq)
        options.startKey = query.startKey?.stringValue ?? query.startKeyDocID
        options.endKey = query.endKey?.stringValue ?? query.endKeyDocID
        options.keys = query.keys?.compactMap(\.stringValue)
        let found = try await store.allDocs(options)
        let rows: [ViewRow] = found.rows.map { row in
            var viewRow = ViewRow(id: row["id"]?.stringValue, key: row["key"] ?? .null, value: row["value"] ?? .null, document: row["doc"])
            if let error = row["error"]?.stringValue { viewRow = ViewRow(key: row["key"] ?? .null, error: error) }
            return viewRow
        }
        return ViewResult(totalRows: found.totalRows, offset: found.offset, updateSeq: found.updateSeq, rows: rows)
    }
}

/// The rows a list function reads and the output it sends.
///
/// The code and headers are those of the last `start()` that reached the session before the first chunk did:
/// CouchDB starts the HTTP response with its first non-empty batch of chunks and, until then, lets a later
/// `start()` replace the pending code and headers (`couch_mrview_show:fixup_headers/2`); after it, a
/// `start()` changes nothing.
final class ListRows: ListSession, @unchecked Sendable {
    // Used by one list call at a time, on the thread running it.
    private var rows: IndexingIterator<[JSONValue]>
    /// The head `start()` gave, with the content type `provides` chose.
    private(set) var head: JSONObject?
    /// What the function sent, in order.
    private(set) var chunks: [String] = []
    /// Whether a batch of chunks has been sent: the response has started.
    private(set) var started = false
    /// Whether the function has asked for a row: CouchDB has sent it its first `list_row`, and a failure from
    /// then on ends a response instead of replacing it.
    private(set) var askedForRow = false

    init(rows: [JSONValue]) { self.rows = rows.makeIterator() }

    func nextRow(sending chunks: [String], start: JSONObject?) throws -> JSONValue? {
        askedForRow = true
        take(chunks, start: start)
        return rows.next()
    }

    /// Takes a batch of output: its head first (while the response has not started), then its chunks.
    func take(_ chunks: [String], start: JSONObject?) {
        if let start, !started { head = start }
        if !chunks.isEmpty { started = true }
        self.chunks += chunks
    }

    /// The output so far with the list's code and headers (`couch_mrview_show:fixup_headers/2`), or `status`
    /// in place of its code.
    func response(status: Int?) throws -> ExternalResponse {
        var response = try ExternalResponse(head ?? JSONObject())
        if let status { response.code = status }
        response.body = Array(chunks.joined().utf8)
        response.json = nil
        return response
    }
}
