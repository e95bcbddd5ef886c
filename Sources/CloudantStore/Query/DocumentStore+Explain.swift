public import CloudantCore

extension DocumentStore {
    /// How ``find(_:)`` would run `request`, shaped like CouchDB's `_explain` (spec M-27): the index used,
    /// the normalised selector, the options, and which conditions SQL narrows the scan with.
    ///
    /// Until JSON indexes land, every query runs on the special `_all_docs` index, narrowed by `_id` ranges
    /// and the entity kind where the selector allows; `"sql_narrowing"` says which.
    public func explain(_ request: FindRequest) -> JSONValue {
        let scan = QueryScan(request.selector)
        var narrowing = JSONObject()
        if let lower = scan.idLowerBound {
            narrowing[lower.inclusive ? "_id >=" : "_id >"] = .string(lower.value)
        }
        if let upper = scan.idUpperBound {
            narrowing[upper.inclusive ? "_id <=" : "_id <"] = .string(upper.value)
        }
        if let prefix = scan.idPrefix { narrowing["_id begins with"] = .string(prefix) }
        if let kind = scan.kind { narrowing["entityType ="] = .string(kind) }
        return [
            "dbname": .string(name),
            "index": [
                "ddoc": nil, "name": "_all_docs", "type": "special",
                "def": ["fields": [["_id": "asc"]]],
            ],
            "partitioned": false,
            "selector": request.selector.json,
            "opts": [
                "use_index": .array((request.useIndex ?? []).map { .string($0) }),
                "bookmark": .string(request.bookmark ?? "nil"), "limit": .number(JSONNumber(request.limit)),
                "skip": .number(JSONNumber(request.skip)),
                "sort": .object(JSONObject(request.sort.map { ($0.path.description, .string($0.descending ? "desc" : "asc")) })),
                "fields": .array((request.fields ?? []).map { .string($0.description) }),
                "conflicts": .bool(request.conflicts), "execution_stats": .bool(request.executionStats),
            ],
            "limit": .number(JSONNumber(request.limit)),
            "skip": .number(JSONNumber(request.skip)),
            "fields": .array((request.fields ?? []).map { .string($0.description) }),
            "sql_narrowing": .object(narrowing),
            "in_memory_sort": .bool(!request.sort.isEmpty),
            "covering": false,
        ]
    }
}
