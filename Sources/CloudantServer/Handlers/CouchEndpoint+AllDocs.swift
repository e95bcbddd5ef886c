internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|POST /{db}/_all_docs` (spec D-54 … D-56), with CouchDB's JSON-encoded key parameters;
    /// `_design_docs` when `designOnly`.
    func allDocs(_ request: CouchRequest, database: String, designOnly: Bool = false) async throws -> Response {
        guard request.method == .get || request.method == .post || request.method == .head else {
            throw unsupported("GET,HEAD,POST")
        }
        var query = request.query
        var keys: [JSONValue]?
        if request.method == .post {
            try request.requireJSONContentType()
            let body = try request.jsonObjectBody()
            for (name, value) in body.members where name != "keys" {
                // Options may also come in the body; they are read as the JSON-encoded query values.
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
        if keys == nil, let key = try query.json("key") { keys = [key] }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        var options = AllDocsOptions(
            inclusiveEnd: try query.bool("inclusive_end", default: true), descending: try query.bool("descending", default: false),
            limit: try query.int("limit"), skip: max(0, try query.int("skip") ?? 0),
            includeDocs: try query.bool("include_docs", default: false), conflicts: try query.bool("conflicts", default: false))
        if let limit = options.limit, limit < 0 { options.limit = nil }
        if let keys {
            return CouchResponse.json(try await keyedRows(keys, options: options, store: store))
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
            let total = try await store.allDocs(AllDocsOptions(limit: 0)).totalRows
            return CouchResponse.json(Self.allDocsBody(total: total, offset: options.skip, rows: []))
        }
        return CouchResponse.json(try await store.allDocs(options).json)
    }

    private func keyedRows(_ keys: [JSONValue], options: AllDocsOptions, store: DocumentStore) async throws -> JSONValue {
        var keyed = options
        keyed.keys = keys.compactMap(\.stringValue)
        keyed.skip = 0
        keyed.limit = nil
        let found = try await store.allDocs(keyed)
        var stringRows = found.rows.makeIterator()
        var rows: [JSONValue] = []
        for key in keys {
            if key.stringValue != nil, let row = stringRows.next() {
                rows.append(row)
            } else {
                rows.append(["key": key, "error": "not_found"])
            }
        }
        let page = Array(rows.dropFirst(options.skip).prefix(options.limit ?? Int.max))
        return Self.allDocsBody(total: found.totalRows, offset: options.skip, rows: page)
    }

    private static func allDocsBody(total: Int, offset: Int, rows: [JSONValue]) -> JSONValue {
        ["total_rows": .number(JSONNumber(total)), "offset": .number(JSONNumber(offset)), "rows": .array(rows)]
    }

    private static func sortsAfterStrings(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: true
        default: false
        }
    }
}
