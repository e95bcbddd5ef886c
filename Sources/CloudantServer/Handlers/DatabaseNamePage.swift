internal import CloudantCore

/// The database names `GET /_all_dbs` and `GET /_dbs_info` answer: CouchDB's `_all_dbs` is an `_all_docs` of
/// its `_dbs` database (`chttpd_misc:handle_all_dbs_info_req/1`), so it takes the same parameters: `key`,
/// `keys`, `startkey`/`start_key`, `endkey`/`end_key`, `inclusive_end`, `descending`, `skip` and `limit`, with
/// keys compared as ids are (by their bytes), and its parameters parsed as `_all_docs` parses them.
struct DatabaseNamePage {
    /// The request's arguments, parsed as `_all_docs` parses them (``CouchEndpoint/allDocsQuery(_:partition:)``)
    /// and checked as `fabric_util:validate_all_docs_args/2` checks them: `reduce=true`, grouping and `keys`
    /// beside a key range are `400 query_parse_error`.
    static func query(_ request: CouchRequest) throws -> ViewQuery {
        let query = try CouchEndpoint.allDocsQuery(request, partition: nil)
        try query.validatedForAllDocs(partitionedDatabase: false)
        return query
    }

    /// The names in the order and window the query asks for. A key bound falls back on its document-id bound
    /// (`startkey_docid`, `endkey_docid`), as `fabric_view_all_docs` reads them.
    static func names(_ all: [String], query: ViewQuery) -> [String] {
        let descending = query.descending
        let limit = query.limit ?? Int.max
        var names = all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if let keys = query.keys {
            let present = Set(names)
            let wanted = keys.compactMap(\.stringValue).filter(present.contains)
            return Array((descending ? wanted.reversed() : wanted).dropFirst(query.skip).prefix(limit))
        }
        let start = query.startKey ?? query.startKeyDocID.map(JSONValue.string)
        let end = query.endKey ?? query.endKeyDocID.map(JSONValue.string)
        if descending { names.reverse() }
        names = names.filter { name in
            if let start, !Self.name(name, isAtOrPast: start, descending: descending) { return false }
            if let end {
                if Self.name(name, isPast: end, descending: descending) { return false }
                if !query.inclusiveEnd, end.stringValue == name { return false }
            }
            return true
        }
        return Array(names.dropFirst(query.skip).prefix(limit))
    }

    /// Whether `name` comes at or after `key` in the walk's direction. Keys that are not strings sort as
    /// CouchDB collates them against ids: null, booleans and numbers before every string, arrays and objects
    /// after.
    private static func name(_ name: String, isAtOrPast key: JSONValue, descending: Bool) -> Bool {
        let order = compare(name, key)
        return descending ? order <= 0 : order >= 0
    }

    private static func name(_ name: String, isPast key: JSONValue, descending: Bool) -> Bool {
        let order = compare(name, key)
        return descending ? order < 0 : order > 0
    }

    /// -1, 0 or 1 as `name` sorts before, with or after `key`.
    private static func compare(_ name: String, _ key: JSONValue) -> Int {
        switch key {
        case .string(let text):
            if name == text { return 0 }
            return name.utf8.lexicographicallyPrecedes(text.utf8) ? -1 : 1
        case .array, .object: return -1
        default: return 1
        }
    }
}
