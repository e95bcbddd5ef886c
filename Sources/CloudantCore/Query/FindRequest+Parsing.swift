extension FindRequest {
    /// Parses a `_find` (or `_explain`) body as CouchDB's `mango_opts:validate_find` does: each known key
    /// is checked in CouchDB's order, with CouchDB's error names, and an unknown key is refused after them.
    ///
    /// ```swift
    /// let request = try FindRequest(JSONValue(parsing: #"{"selector": {"age": {"$gt": 20}}, "use_index": null}"#))
    /// ```
    /// - Throws: `CloudantError` carrying a ``QueryErrorKind``: `missing_required_key` (no selector),
    ///   `invalid_selector_json` (the selector or the body is not an object) or a selector error,
    ///   `invalid_index_name` (`use_index`), `invalid_bookmark`, `invalid_non_neg_integer` (`limit`,
    ///   `skip`), `invalid_sort_json`, `invalid_sort_field`, `unsupported_mixed_sort`, `invalid_fields`,
    ///   `invalid_field`, `illegal_partition`, `invalid_pos_integer` (`r`), `invalid_boolean`,
    ///   `invalid_value` (`stale`), then `invalid_key` for a key CouchDB does not know.
    public init(_ body: JSONValue) throws {
        guard case .object(let object) = body else {
            throw QueryErrorKind.invalidSelectorJSON.error("A _find request must be a JSON object.", field: nil)
        }
        guard let selectorJSON = object["selector"] else {
            throw QueryErrorKind.missingRequiredKey.error("Missing required key: selector", field: "selector")
        }
        self.init(selector: try MangoSelector(selectorJSON))
        useIndex = try object["use_index"].flatMap(Self.parseUseIndex)
        switch object["bookmark"] {
        // `"nil"`, which a page with no match answers, is no bookmark to CouchDB either: it does not decode,
        // and `mango_json_bookmark:unpack/1` refuses it (`invalid_bookmark`).
        case nil, .null?, .string("")?: bookmark = nil
        case .string(let text)?: bookmark = text
        case let other?:
            throw QueryErrorKind.invalidBookmark.error("Invalid bookmark value: \(other.jsonString())", field: "bookmark")
        }
        limit = try Self.integer(object["limit"], name: "limit", minimum: 0) ?? 25
        skip = try Self.integer(object["skip"], name: "skip", minimum: 0) ?? 0
        sort = try object["sort"].map(Self.parseSort) ?? []
        fields = try object["fields"].flatMap(Self.parseFields)
        if let value = object["partition"] {
            guard case .string(let name) = value else {
                throw QueryErrorKind.illegalPartition.error("Partition must be a string", field: "partition")
            }
            if !name.isEmpty {
                try DocumentPartition.validate(name)
                partition = name
            }
        }
        readQuorum = try Self.integer(object["r"], name: "r", minimum: 1) ?? 1
        conflicts = try Self.boolean(object["conflicts"], name: "conflicts") ?? false
        switch object["stale"] {
        case nil, .bool(false)?, .string("false")?: staleOK = false
        case .string("ok")?: staleOK = true
        default:
            throw QueryErrorKind.invalidValue.error("stale must be \"ok\" or false.", field: "stale")
        }
        update = try Self.boolean(object["update"], name: "update") ?? true
        stable = try Self.boolean(object["stable"], name: "stable") ?? false
        executionStats = try Self.boolean(object["execution_stats"], name: "execution_stats") ?? false
        allowFallback = try Self.boolean(object["allow_fallback"], name: "allow_fallback") ?? true
        for key in object.keys where !Self.knownKeys.contains(key) {
            throw QueryErrorKind.invalidKey.error("Invalid key \(key) for this request.", field: key)
        }
    }

    /// Keys a `_find` body may have (others are CouchDB's `invalid_key`).
    static let knownKeys: Set<String> = [
        "selector", "use_index", "bookmark", "limit", "skip", "sort", "fields", "partition", "r", "conflicts",
        "stale", "update", "stable", "execution_stats", "allow_fallback",
    ]

    /// `use_index` as CouchDB reads it: `"ddoc"`, `"ddoc/name"`, `"_design/ddoc"`, `"_design/ddoc/name"`,
    /// `[]`, `["ddoc"]` or `["ddoc", "name"]`; `null` and `[]` name no index (`nil`).
    /// - Throws: `CloudantError` with ``QueryErrorKind/invalidIndexName`` for any other shape.
    static func parseUseIndex(_ value: JSONValue) throws -> [String]? {
        // CouchDB's words (`mango_error`), with the value as Erlang writes it.
        func invalid() -> CloudantError {
            QueryErrorKind.invalidIndexName.error("Invalid index name: \(ErlangTerm.format(value))", field: "use_index")
        }
        switch value {
        case .null: return nil
        case .string(let text):
            let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            switch parts.count {
            case 1: return parts
            case 2: return parts[0] == "_design" ? [parts[1]] : parts
            case 3 where parts[0] == "_design": return [parts[1], parts[2]]
            default: throw invalid()
            }
        case .array(let items):
            let names = items.compactMap(\.stringValue)
            guard names.count == items.count, names.count <= 2 else { throw invalid() }
            return names.isEmpty ? nil : names
        default:
            throw invalid()
        }
    }

    /// Parses a Mango `sort` array as CouchDB's `mango_sort` does.
    /// - Throws: `CloudantError` with ``QueryErrorKind/invalidSortJSON`` (not an array),
    ///   ``QueryErrorKind/invalidSortField`` (an entry that is not a name or a one-key object with `"asc"` or
    ///   `"desc"`), or ``QueryErrorKind/unsupportedMixedSort``.
    public static func parseSort(_ json: JSONValue) throws -> [SortField] {
        guard case .array(let entries) = json else {
            throw QueryErrorKind.invalidSortJSON.error("Sort must be an array of sort specs, not: \(ErlangTerm.format(json))", field: "sort")
        }
        let fields = try entries.map { entry -> SortField in
            guard let (name, descending) = SortEntry.parse(entry) else {
                throw QueryErrorKind.invalidSortField.error("Invalid sort field: \(ErlangTerm.format(entry))", field: "sort")
            }
            return SortField(try FieldPath(parsing: name), descending: descending)
        }
        try SortEntry.requireOneDirection(fields.map(\.descending), field: "sort")
        return fields
    }

    /// `fields`: an array of field names; `[]` means whole documents (`nil`).
    private static func parseFields(_ json: JSONValue) throws -> [FieldPath]? {
        guard case .array(let names) = json else {
            throw QueryErrorKind.invalidFields.error("Fields must be an array of strings, not: \(ErlangTerm.format(json))", field: "fields")
        }
        let paths = try names.map { name -> FieldPath in
            guard case .string(let text) = name else {
                throw QueryErrorKind.invalidField.error("Invalid JSON for field spec: \(ErlangTerm.format(name))", field: "fields")
            }
            return try FieldPath(parsing: text)
        }
        return paths.isEmpty ? nil : paths
    }

    private static func integer(_ value: JSONValue?, name: String, minimum: Int64) throws -> Int? {
        guard let value else { return nil }
        guard case .number(.integer(let number)) = value, number >= minimum else {
            if minimum > 0 {
                throw QueryErrorKind.invalidPosInteger.error("\(ErlangTerm.format(value)) is not an integer greater than zero", field: name)
            }
            throw QueryErrorKind.invalidNonNegInteger.error(
                "\(ErlangTerm.format(value)) is not an integer greater than or equal to zero", field: name)
        }
        return Int(clamping: number)
    }

    private static func boolean(_ value: JSONValue?, name: String) throws -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else {
            throw QueryErrorKind.invalidBoolean.error("Invalid boolean value: \(ErlangTerm.format(value))", field: name)
        }
        return flag
    }
}
