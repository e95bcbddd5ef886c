internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|POST /{db}/_all_docs`, with CouchDB's JSON-encoded key parameters; `_design_docs` or `_local_docs`
    /// for those namespaces (see ``localRows(options:includeSystem:store:)``).
    ///
    /// The parameters are a view's, read and checked as CouchDB reads them for these lists
    /// (`couch_mrview_http:parse_body_and_query/2`, then `couch_mrview_util:validate_all_docs_args/2`, see
    /// ``allDocsQuery(_:partition:)``), so what a view refuses here (`reduce=true`, grouping, `keys` with a range)
    /// is refused the same way, and `startkey_docid`, `endkey_docid` and `partition` bound the range.
    ///
    /// - Parameter partition: For `/{db}/_partition/{partition}/_all_docs`: the range defaults to the
    ///   partition's ids (`partition:` to `partition;`), as CouchDB's.
    func allDocs(
        _ request: CouchRequest, database: String, namespace: AllDocsNamespace = .all, partition: String? = nil
    ) async throws -> Response {
        guard request.method == .get || request.method == .post || request.method == .head else {
            throw unsupported("GET,HEAD,POST")
        }
        // The database is opened (and the user's access checked) before the parameters are read, as `chttpd_db`.
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let query = try Self.allDocsQuery(request, partition: partition)
        let includeSystem = namespace == .local && request.query["include_system"] == "true"
        let answer = try await allDocsAnswer(query, namespace: namespace, includeSystem: includeSystem, store: store, user: request.user)
        return request.method == .head ? CouchResponse.headOnly() : CouchResponse.json(answer)
    }

    /// `POST /{db}/_all_docs/queries` (and `_design_docs`, `_local_docs`): each query of the body's `queries`
    /// answered in turn, as `chttpd_db:multi_all_docs_view/4` does. Each starts from the query string's
    /// parameters with its own `keys` and grouping; a `keys` of one key is then that key's range.
    func allDocsQueries(_ request: CouchRequest, database: String, namespace: AllDocsNamespace) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        // Unlike a view's, these take a body of any declared type (`chttpd_db` checks none here).
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let prepared = try Self.multipleQueries(request, partition: nil)
        var results: [JSONValue] = []
        for query in prepared {
            results.append(try await allDocsAnswer(query, namespace: namespace, includeSystem: false, store: store, user: request.user))
        }
        return CouchResponse.json(["results": .array(results)])
    }

    /// Which documents an all-documents list holds (`chttpd_db:set_namespace/2`), by the list's path segment.
    enum AllDocsNamespace: String {
        case all = "_all_docs", design = "_design_docs", local = "_local_docs"
    }

    /// An all-documents request's parameters as `couch_mrview_http:parse_body_and_query/2` reads them: a
    /// `POST`'s body members, then the query string's, which win. The `keys` of the body (`POST`) or of the
    /// query string (`GET`) stay the request's keys even when they hold one key, which a view would read as
    /// a range.
    /// - Throws: `bad_request` "`keys` body member must be an array." or "`keys` parameter must be an array.",
    ///   and what ``ViewQuery/apply(_:_:)`` throws.
    static func allDocsQuery(_ request: CouchRequest, partition: String?) throws -> ViewQuery {
        var query = ViewQuery()
        if request.method == .post {
            try request.requireJSONContentType()
            let body = try request.jsonObjectBody()
            if let value = body["keys"] {
                guard case .array(let list) = value else { throw HTTPFailure.badRequest("`keys` body member must be an array.") }
                query.keys = list
            }
            for (name, value) in body.members { try query.apply(name, .json(value)) }
        } else if let value = try request.query.json("keys") {
            guard case .array(let list) = value else { throw HTTPFailure.badRequest("`keys` parameter must be an array.") }
            query.keys = list
        }
        return try viewQuery(queryString: request.query, partition: partition, from: query)
    }

    /// One all-documents answer for a parsed query: checked as `validate_all_docs_args` checks it, then the keys
    /// looked up or the range read.
    private func allDocsAnswer(
        _ query: ViewQuery, namespace: AllDocsNamespace, includeSystem: Bool, store: DocumentStore, user: UserContext
    ) async throws -> JSONValue {
        try query.validatedForAllDocs(partitionedDatabase: query.partition == nil ? false : try await store.isPartitioned())
        var options = AllDocsOptions(
            inclusiveEnd: query.inclusiveEnd, descending: query.descending, limit: query.limit, skip: query.skip,
            includeDocs: query.includeDocs, conflicts: query.conflicts ?? false, updateSeq: query.updateSeq,
            documentOptions: ReadOptions(attachments: query.attachments, attachmentEncodingInfo: query.attachmentEncodingInfo))
        // `apply_limit`: a partition's rows are held to `partition_query_limit`, others to `query_limit`.
        options.limit = try nodeConfiguration.queryLimits.limit(options.limit, partitioned: query.partition != nil)
        // `all_docs_key_opts`: a key bound, else the id bound (`startkey_docid`, `endkey_docid`).
        var start = query.startKey ?? query.startKeyDocID.map(JSONValue.string)
        var end = query.endKey ?? query.endKeyDocID.map(JSONValue.string)
        if let partition = query.partition { (start, end) = Self.partitionBounds(partition, start: start, end: end, descending: query.descending) }
        if namespace == .local {
            if let keys = query.keys {
                options.keys = (query.descending ? keys.reversed() : keys).compactMap(\.stringValue)
            } else {
                (options.startKey, options.endKey) = (start?.stringValue, end?.stringValue)
            }
            return try await localRows(options: options, includeSystem: includeSystem, store: store)
        }
        let access = try await readAccess(of: store, for: user)
        if let keys = query.keys {
            return try await keyedRows(keys, options: options, designOnly: namespace == .design, store: store, access: access)
        }
        let designOnly = namespace == .design
        // Non-string keys collate before (null, booleans, numbers) or after (arrays, objects) every id.
        let (lower, upper) = options.descending ? (end, start) : (start, end)
        var empty = false
        if let lower, lower.stringValue == nil, Self.sortsAfterStrings(lower) { empty = true }
        if let upper, upper.stringValue == nil, !Self.sortsAfterStrings(upper) { empty = true }
        options.startKey = start?.stringValue
        options.endKey = end?.stringValue
        if designOnly {
            // Every design id sorts between "_design/" and "_design0" ('0' follows '/').
            let (low, high) = ("_design/", "_design0")
            if options.descending {
                options.startKey = min(options.startKey ?? high, high)
                options.endKey = max(options.endKey ?? low, low)
            } else {
                options.startKey = max(options.startKey ?? low, low)
                options.endKey = min(options.endKey ?? high, high)
            }
            if options.endKey == high || options.startKey == high { options.inclusiveEnd = options.endKey != high && options.inclusiveEnd }
        }
        if empty {
            // A range that holds no id: CouchDB's offset is then every row before the range.
            var none = options
            none.limit = 0
            none.startKey = nil
            none.endKey = nil
            var answer = try await store.allDocs(none)
            // A restricted user's figures count only the rows read to answer, here none (see `visibleRows`).
            if access.isRestricted { answer.totalRows = 0 }
            answer.offset = Self.sortsAfterStrings(lower ?? .null) != options.descending ? answer.totalRows : 0
            if designOnly, !access.isRestricted { answer.totalRows = try await Self.designDocumentCount(of: store) }
            return answer.json
        }
        if access.isRestricted { return try await visibleRows(options, store: store, access: access) }
        var answer = try await store.allDocs(options)
        if designOnly { answer.totalRows = try await Self.designDocumentCount(of: store) }
        return answer.json
    }

    /// `apply_all_docs_partition`: the range held to the partition's ids (`partition:` to `partition;`), a bound
    /// the query gives kept when it lies inside. Bounds compare in Erlang's term order, where every string
    /// follows every other JSON value.
    private static func partitionBounds(_ partition: String, start: JSONValue?, end: JSONValue?, descending: Bool)
        -> (start: JSONValue, end: JSONValue)
    {
        let (low, high) = DocumentPartition.idRange(partition)
        let (defaultStart, defaultEnd) = descending ? (high, low) : (low, high)
        func greater(_ a: String, _ b: JSONValue) -> JSONValue {
            guard case .string(let text) = b else { return .string(a) }
            return .string(Array(a.utf8).lexicographicallyPrecedes(Array(text.utf8)) ? text : a)
        }
        func lesser(_ a: String, _ b: JSONValue) -> JSONValue {
            guard case .string(let text) = b else { return b }
            return .string(Array(a.utf8).lexicographicallyPrecedes(Array(text.utf8)) ? a : text)
        }
        let (start, end) = (start ?? .string(defaultStart), end ?? .string(defaultEnd))
        return descending
            ? (lesser(defaultStart, start), greater(defaultEnd, end)) : (greater(defaultStart, start), lesser(defaultEnd, end))
    }

    /// `_design_docs`' `total_rows`: the database's design documents, as `couch_mrview:get_total_rows` counts
    /// them for the `_design` namespace (`_all_docs` counts every document).
    private static func designDocumentCount(of store: DocumentStore) async throws -> Int {
        var options = AllDocsOptions()
        (options.startKey, options.endKey, options.inclusiveEnd) = ("_design/", "_design0", false)
        return try await store.allDocs(options).rows.count
    }

    /// A range of `_all_docs` for a user restricted by per-document access: the rows of visible documents
    /// only, `skip` and `limit` counted among them. The range is read in pages of ``restrictedPageSize`` rows
    /// and reading stops once the answer is full, so one request never holds the whole database in memory.
    /// `total_rows` counts the visible rows read to answer and `offset` is the rows skipped, so neither tells
    /// how many hidden documents there are.
    private func visibleRows(_ options: AllDocsOptions, store: DocumentStore, access: DocumentAccess) async throws
        -> JSONValue
    {
        let wanted = options.skip + (options.limit ?? Int.max)
        var page = options
        page.limit = Self.restrictedPageSize
        page.skip = 0
        page.includeDocs = true
        var visible: [JSONValue] = []
        var updateSeq: Int64?
        reading: while true {
            let found = try await store.allDocs(page)
            updateSeq = updateSeq ?? found.updateSeq
            for row in found.rows {
                guard case .object(var object) = row, let document = object["doc"]?.objectValue, access.allows(document)
                else { continue }
                if !options.includeDocs { object.removeValue(forKey: "doc") }
                visible.append(.object(object))
                if visible.count >= wanted { break reading }
            }
            guard found.rows.count == Self.restrictedPageSize, let last = found.rows.last?["id"]?.stringValue else { break }
            // The next page starts after the last row read, in either direction.
            page.startKey = last
            page.skip = 1
        }
        let rows = Array(visible.dropFirst(options.skip))
        return AllDocsResult(totalRows: visible.count, offset: options.skip, rows: rows, updateSeq: updateSeq).json
    }

    /// Rows read per step of a restricted `_all_docs` range.
    static let restrictedPageSize = 500

    /// The rows of a `keys` request, as `fabric_view_all_docs:go/5` answers one: the keys in the direction read
    /// (reversed for `descending=true`), `skip` and `limit` applied to them, then for `_design_docs` only the
    /// design ids kept; `offset` and a requested `update_seq` are `null`, and `total_rows` counts the list's
    /// documents.
    private func keyedRows(
        _ keys: [JSONValue], options: AllDocsOptions, designOnly: Bool, store: DocumentStore, access: DocumentAccess
    ) async throws -> JSONValue {
        var selected = Array((options.descending ? keys.reversed() : keys).dropFirst(options.skip).prefix(options.limit ?? Int.max))
        if designOnly { selected = selected.filter { $0.stringValue.map(DocumentID.isDesign) ?? false } }
        var keyed = options
        let ids = selected.map(Self.documentID(ofKey:))
        keyed.keys = ids.compactMap { $0 }
        keyed.skip = 0
        keyed.limit = nil
        keyed.updateSeq = false
        let found = try await store.allDocs(keyed)
        var idRows = found.rows.makeIterator()
        var rows: [JSONValue] = []
        for (key, id) in zip(selected, ids) {
            guard let id, case .object(var row)? = idRows.next(), try await access.allowsDocument(id: id, in: store)
            else {
                rows.append(["key": key, "error": "not_found"])
                continue
            }
            // CouchDB echoes the key as sent, even when it named the id as a list of pieces.
            if row["id"] != nil { row["id"] = key }
            row["key"] = key
            rows.append(.object(row))
        }
        // A restricted user learns nothing of the hidden documents, not even how many there are.
        let total =
            access.isRestricted ? rows.count { $0["error"] == nil } : designOnly ? try await Self.designDocumentCount(of: store) : found.totalRows
        guard case .object(var answer) = AllDocsResult(totalRows: total, offset: nil, rows: rows).json else { return .null }
        if options.updateSeq { answer["update_seq"] = .null }
        return .object(answer)
    }

    /// The id a `keys` entry names. CouchDB looks ids up as Erlang iolists, so besides a string, a list of
    /// strings, byte values (0…255) and such lists names the id its bytes spell (`["d", [49]]` is `"d1"`);
    /// anything else names no document.
    static func documentID(ofKey key: JSONValue) -> String? {
        var bytes: [UInt8] = []
        func flatten(_ value: JSONValue) -> Bool {
            switch value {
            case .string(let text):
                bytes += text.utf8
                return true
            case .number(let number):
                guard let byte = number.int64Value, (0...255).contains(byte) else { return false }
                bytes.append(UInt8(byte))
                return true
            case .array(let items):
                return items.allSatisfy(flatten)
            default:
                return false
            }
        }
        if case .string(let id) = key { return id }
        guard case .array = key, flatten(key) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func sortsAfterStrings(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: true
        default: false
        }
    }

    /// `_local_docs` (`couch_mrview` over the `_local` namespace): no total and no offset (`null`), `update_seq`
    /// `null` when asked, CouchDB's own checkpoints hidden unless `include_system=true`. Keys arrive in the
    /// direction read; the store applies `skip` and `limit` to them and keeps the local ids.
    private func localRows(options: AllDocsOptions, includeSystem: Bool, store: DocumentStore) async throws -> JSONValue {
        let result = try await store.localDocs(options, includeSystem: includeSystem)
        var answer: JSONObject = ["total_rows": .null, "offset": .null, "rows": .array(result.rows)]
        if options.updateSeq { answer["update_seq"] = .null }
        return .object(answer)
    }
}
