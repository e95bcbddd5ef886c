internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// The parameters of `_all_docs` besides its keys, parsed as a view's are (`couch_mrview_http:parse_params/2`).
    static let allDocsArguments: Set<String> = [
        "inclusive_end", "descending", "limit", "skip", "include_docs", "conflicts", "update_seq", "attachments",
        "att_encoding_info",
    ]

    /// `GET|POST /{db}/_all_docs`, with CouchDB's JSON-encoded key parameters;
    /// `_design_docs` when `designOnly`; `_local_docs` when `local` (see ``localRows(_:options:store:)``).
    ///
    /// - Parameter partition: For `/{db}/_partition/{partition}/_all_docs`: the range defaults to the
    ///   partition's ids (`partition:` to `partition;`), as CouchDB's.
    func allDocs(
        _ request: CouchRequest, database: String, designOnly: Bool = false, partition: String? = nil, local: Bool = false
    ) async throws -> Response {
        guard request.method == .get || request.method == .post || request.method == .head else {
            throw unsupported("GET,HEAD,POST")
        }
        var query = request.query
        var keys: [JSONValue]?
        if request.method == .post {
            try request.requireJSONContentType()
            let body = try request.jsonObjectBody()
            for (name, value) in body.members where name != "keys" && !request.query.contains(name) {
                // Options may also come in the body; they are read as the JSON-encoded query values, and the
                // query string wins (`couch_mrview_http:parse_body_and_query/3` parses it last).
                query[name] = value.stringValue.map { name.contains("key") ? value.jsonString() : $0 } ?? value.jsonString()
            }
            if let value = body["keys"] {
                guard let list = value.arrayValue else { throw HTTPFailure.badRequest("`keys` body member must be an array.") }
                keys = list
            }
        }
        if keys == nil, let value = try query.json("keys") {
            guard let list = value.arrayValue else { throw HTTPFailure.badRequest("`keys` member must be an array.") }
            keys = list
        }
        // `key` is a one-key range, not a list: CouchDB reports its offset.
        if keys == nil, let key = try query.json("key") {
            query["startkey"] = key.jsonString()
            query["endkey"] = key.jsonString()
            query["inclusive_end"] = "true"
            for alias in ["start_key", "end_key"] { query[alias] = nil }
        }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let arguments = try query.indexArguments(Self.allDocsArguments)
        var options = AllDocsOptions(
            inclusiveEnd: arguments.inclusiveEnd, descending: arguments.descending, limit: arguments.limit, skip: arguments.skip,
            includeDocs: arguments.includeDocs, conflicts: arguments.conflicts ?? false, updateSeq: arguments.updateSeq,
            documentOptions: ReadOptions(attachments: arguments.attachments, attachmentEncodingInfo: arguments.attachmentEncodingInfo))
        // `validate_all_docs_args`: a partition's rows are held to `partition_query_limit`, others to `query_limit`.
        options.limit = try nodeConfiguration.queryLimits.limit(options.limit, partitioned: partition != nil)
        if local {
            options.keys = keys?.compactMap(\.stringValue)
            if keys == nil {
                options.startKey = try (query.json("startkey") ?? query.json("start_key"))?.stringValue
                options.endKey = try (query.json("endkey") ?? query.json("end_key"))?.stringValue
            }
            return try await localRows(request, options: options, store: store)
        }
        let access = try await readAccess(of: store, for: request.user)
        if let keys {
            // CouchDB walks the keys backwards for `descending=true`.
            let ordered = options.descending ? Array(keys.reversed()) : keys
            return CouchResponse.json(try await keyedRows(ordered, options: options, store: store, access: access))
        }
        let start = try query.json("startkey") ?? query.json("start_key")
        let end = try query.json("endkey") ?? query.json("end_key")
        // Non-string keys collate before (null, booleans, numbers) or after (arrays, objects) every id.
        let (lower, upper) = options.descending ? (end, start) : (start, end)
        var empty = false
        if let lower, lower.stringValue == nil, Self.sortsAfterStrings(lower) { empty = true }
        if let upper, upper.stringValue == nil, !Self.sortsAfterStrings(upper) { empty = true }
        options.startKey = start?.stringValue
        options.endKey = end?.stringValue
        if let partition {
            let (low, high) = DocumentPartition.idRange(partition)
            options.startKey = options.startKey ?? (options.descending ? high : low)
            options.endKey = options.endKey ?? (options.descending ? low : high)
        }
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
            return CouchResponse.json(answer.json)
        }
        if access.isRestricted { return CouchResponse.json(try await visibleRows(options, store: store, access: access)) }
        var answer = try await store.allDocs(options)
        if designOnly { answer.totalRows = try await Self.designDocumentCount(of: store) }
        return CouchResponse.json(answer.json)
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

    private func keyedRows(
        _ keys: [JSONValue], options: AllDocsOptions, store: DocumentStore, access: DocumentAccess
    ) async throws -> JSONValue {
        var keyed = options
        let ids = keys.map(Self.documentID(ofKey:))
        keyed.keys = ids.compactMap { $0 }
        keyed.skip = 0
        keyed.limit = nil
        let found = try await store.allDocs(keyed)
        var idRows = found.rows.makeIterator()
        var rows: [JSONValue] = []
        for (key, id) in zip(keys, ids) {
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
        let page = Array(rows.dropFirst(options.skip).prefix(options.limit ?? Int.max))
        // A restricted user learns nothing of the hidden documents, not even how many there are.
        let total = access.isRestricted ? rows.count { $0["error"] == nil } : found.totalRows
        return AllDocsResult(totalRows: total, offset: nil, rows: page, updateSeq: found.updateSeq).json
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
    /// `null` when asked, CouchDB's own checkpoints hidden unless `include_system=true`.
    private func localRows(_ request: CouchRequest, options: AllDocsOptions, store: DocumentStore) async throws -> Response {
        let includeSystem = request.query["include_system"] == "true"
        let result = try await store.localDocs(options, includeSystem: includeSystem)
        var answer: JSONObject = ["total_rows": .null, "offset": .null, "rows": .array(result.rows)]
        if options.updateSeq { answer["update_seq"] = .null }
        return CouchResponse.json(.object(answer))
    }
}
