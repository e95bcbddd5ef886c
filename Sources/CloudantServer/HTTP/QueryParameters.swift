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
        for (position, pair) in rawQuery.split(whereSeparator: { $0 == "&" || $0 == ";" }).enumerated() where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0], plusIsSpace: true)
            let value = parts.count > 1 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
            values[name] = value
            positions[name] = position
            ordered.append((name, value))
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
        var result = QueryParameters(rawQuery: "")
        for (position, pair) in kept.enumerated() {
            result.values[pair.name] = pair.value
            result.positions[pair.name] = position
            result.ordered.append(pair)
        }
        return result
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

    /// A boolean parameter (`true`/`false`).
    /// - Throws: ``HTTPFailure`` `400 query_parse_error` for any other value, as CouchDB.
    func bool(_ name: String) throws -> Bool? {
        guard let value = values[name] else { return nil }
        switch value {
        case "true": return true
        case "false": return false
        default: throw HTTPFailure(status: 400, error: "query_parse_error", reason: "Invalid boolean parameter: \"\(value)\"")
        }
    }

    /// A boolean parameter with a default.
    func bool(_ name: String, default fallback: Bool) throws -> Bool { try bool(name) ?? fallback }

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
    /// - Throws: ``HTTPFailure`` `400 bad_request` "invalid_json".
    func json(_ name: String) throws -> JSONValue? {
        guard let value = values[name] else { return nil }
        do {
            return try JSONValue(parsing: value)
        } catch {
            throw HTTPFailure.badRequest("invalid_json")
        }
    }
}
