internal import CloudantCore

/// A request's query parameters with CouchDB's parsing rules and error bodies.
struct QueryParameters: Sendable {
    private var values: [String: String] = [:]
    /// Where each name was last given, counting pairs from 0: which of two names came later.
    private var positions: [String: Int] = [:]
    /// Every parameter in the order written (repeats included), for the parsers that fold over them in
    /// order as CouchDB's do (view parameters: a later `key` overrides an earlier `startkey`).
    private(set) var ordered: [(name: String, value: String)] = []

    /// Parses `a=1&b=2` (or `a=1;b=2`: CouchDB's parser, mochiweb's, also splits at `;`); a repeated name
    /// keeps its last value.
    init(rawQuery: String) {
        self.init(pairs: rawQuery.split(whereSeparator: { $0 == "&" || $0 == ";" }).filter { !$0.isEmpty }.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0], plusIsSpace: true)
            let value = parts.count > 1 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
            return (name, value)
        })
    }

    /// The pairs given, in order.
    private init(pairs: [(name: String, value: String)]) {
        for (position, pair) in pairs.enumerated() {
            values[pair.name] = pair.value
            positions[pair.name] = position
            ordered.append(pair)
        }
    }

    /// The raw value of `name`.
    subscript(name: String) -> String? {
        get { values[name] }
        set {
            values[name] = newValue
            ordered.removeAll { $0.name == name }
            if let newValue { ordered.append((name, newValue)) }
        }
    }

    /// The query string as `chttpd_db:handle_partition_req` hands it on below `/{db}/_partition/{partition}`:
    /// `lists:ukeysort/2` of the path's `partition` followed by the given pairs, so `partition` is the path's,
    /// every other name is kept once with its first value, and the pairs are in the byte order of their names.
    func rewritten(forPartition partition: String) -> QueryParameters {
        var kept: [(name: String, value: String)] = [("partition", partition)]
        var seen: Set<String> = ["partition"]
        for pair in ordered where seen.insert(pair.name).inserted { kept.append(pair) }
        kept.sort { Array($0.name.utf8).lexicographicallyPrecedes($1.name.utf8) }
        return QueryParameters(pairs: kept)
    }

    /// The pairs `keep` accepts, in their order.
    func filter(_ keep: (_ name: String, _ value: String) -> Bool) -> QueryParameters {
        QueryParameters(pairs: ordered.filter { keep($0.name, $0.value) })
    }

    /// The same pairs with their names in lower case, as `chttpd_db:parse_changes_query/1` matches them
    /// (`string:to_lower(Key)`): `Include_Docs=true` is `include_docs=true` to `_changes`.
    func lowercasingNames() -> QueryParameters {
        QueryParameters(pairs: ordered.map { ($0.name.lowercased(), $0.value) })
    }

    /// The value of whichever of `names` the query gave last (CouchDB folds over the query in order, so a
    /// later synonym overrides an earlier one).
    func lastGiven(of names: [String]) -> String? {
        names.filter { values[$0] != nil }.max { (positions[$0] ?? -1) < (positions[$1] ?? -1) }.flatMap { values[$0] }
    }

    /// Every parameter by name.
    var all: [String: String] { values }

    /// Whether `name` was given.
    func contains(_ name: String) -> Bool { values[name] != nil }

    /// An option CouchDB turns on only for the exact value `true`, as `chttpd_db:parse_doc_query/2` and
    /// `parse_changes_query/1` match `{Key, "true"}`: any other value (`True`, `1`, `false`) is a pair they
    /// do not know and ignore, so it leaves the option off.
    func flag(_ name: String) -> Bool { ordered.contains { $0.name == name && $0.value == "true" } }

    /// A document write's `new_edits`: the last `true` or `false` given decides, other values are ignored
    /// (`parse_doc_query/2`); `true` without one.
    var newEdits: Bool {
        ordered.last { $0.name == "new_edits" && ($0.value == "true" || $0.value == "false") }?.value != "false"
    }

    /// The parameters among `names`, parsed as `couch_mrview_http:parse_params/2` parses those of views,
    /// `_all_docs` and `_all_dbs` (``ViewQuery/init(parameters:)``): booleans `true` or `false` in any case,
    /// `limit` and `skip` whole numbers from 0, in order, a later one winning.
    /// - Throws: `CloudantError` `query_parse_error` with CouchDB's reason (`Invalid boolean parameter: "no"`,
    ///   `Invalid value for positive integer: "-1"`).
    func indexArguments(_ names: Set<String>) throws -> ViewQuery {
        try ViewQuery(parameters: ordered.filter { names.contains($0.name) }.map { ($0.name, $0.value) })
    }

    /// An integer parameter.
    /// - Throws: ``HTTPFailure`` `400 query_parse_error` when it is not an integer.
    func int(_ name: String) throws -> Int? {
        guard let value = values[name] else { return nil }
        guard let number = Int(value) else {
            throw HTTPFailure(status: 400, error: "query_parse_error", reason: "Invalid value for integer: \"\(value)\"")
        }
        return number
    }

    /// A JSON-encoded parameter (`startkey="a"`, `keys=["a","b"]`, `open_revs=["1-a"]`).
    /// - Throws: ``HTTPFailure`` `400 bad_request` "invalid UTF-8 JSON", CouchDB's answer to any JSON it cannot
    ///   decode (`chttpd:catch_error/4` of `invalid_json`).
    func json(_ name: String) throws -> JSONValue? {
        guard let value = values[name] else { return nil }
        do {
            return try JSONValue(parsing: value)
        } catch {
            throw HTTPFailure.badRequest("invalid UTF-8 JSON")
        }
    }
}
