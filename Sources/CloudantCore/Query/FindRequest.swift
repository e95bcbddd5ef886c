/// One field of a Mango sort (spec M-14).
public struct SortField: Sendable, Hashable {
    /// The field's path.
    public var path: FieldPath
    /// Whether the field sorts descending.
    public var descending: Bool

    /// Creates a sort field.
    public init(_ path: FieldPath, descending: Bool = false) {
        self.path = path
        self.descending = descending
    }

    /// CouchDB's form: `{"field": "asc"|"desc"}`.
    public var json: JSONValue { .object(JSONObject([(path.description, .string(descending ? "desc" : "asc"))])) }
}

/// A Cloudant Query (`_find`) request: selector, sort, paging and projection (spec §3.1, M-14 … M-19).
///
/// ```swift
/// let request = try FindRequest(JSONValue(parsing: #"{"selector":{"age":{"$gt":20}},"sort":["age"],"limit":10}"#))
/// ```
public struct FindRequest: Sendable, Hashable {
    /// Which documents match.
    public var selector: MangoSelector
    /// The order of the results; empty means the order of the index used (by `_id` without one).
    public var sort: [SortField]
    /// At most this many documents (CouchDB's default is 25).
    public var limit: Int
    /// Skip this many matching documents first.
    public var skip: Int
    /// Return only these fields; `nil` returns whole documents.
    public var fields: [FieldPath]?
    /// Continue after the page this bookmark ended (from a previous result of the same query).
    public var bookmark: String?
    /// Add `_conflicts` to each document.
    public var conflicts: Bool
    /// Add execution statistics to the result.
    public var executionStats: Bool
    /// The index to use: a design document name, optionally with an index name.
    public var useIndex: [String]?
    /// Whether a `use_index` that cannot answer the query falls back to the best index that can (CouchDB's
    /// `allow_fallback`, default true).
    public var allowFallback: Bool

    /// Creates a request.
    public init(
        selector: MangoSelector = .all, sort: [SortField] = [], limit: Int = 25, skip: Int = 0,
        fields: [FieldPath]? = nil, bookmark: String? = nil, conflicts: Bool = false, executionStats: Bool = false,
        useIndex: [String]? = nil, allowFallback: Bool = true
    ) {
        self.selector = selector
        self.sort = sort
        self.limit = limit
        self.skip = skip
        self.fields = fields
        self.bookmark = bookmark
        self.conflicts = conflicts
        self.executionStats = executionStats
        self.useIndex = useIndex
        self.allowFallback = allowFallback
    }

    /// Keys a `_find` body may have (others are CouchDB's `invalid_key`).
    static let knownKeys: Set<String> = [
        "selector", "limit", "skip", "sort", "fields", "use_index", "allow_fallback", "bookmark", "conflicts",
        "execution_stats", "r", "update", "stable", "stale", "partition",
    ]

    /// Parses a `_find` body.
    /// - Throws: ``CloudantError`` carrying a ``QueryErrorKind`` (`missing_required_key`, `invalid_key`,
    ///   `invalid_sort_json`, `invalid_sort_dir`, `unsupported_mixed_sort`, `invalid_fields`,
    ///   `invalid_value`, or a selector error).
    public init(_ body: JSONValue) throws {
        guard case .object(let object) = body else {
            throw QueryErrorKind.invalidSelectorJSON.error("A _find request must be a JSON object.", field: nil)
        }
        for key in object.keys where !Self.knownKeys.contains(key) {
            throw QueryErrorKind.invalidKey.error("Invalid key \(key) for _find request.", field: key)
        }
        guard let selectorJSON = object["selector"] else {
            throw QueryErrorKind.missingRequiredKey.error("Missing required key: selector", field: "selector")
        }
        self.init(selector: try MangoSelector(selectorJSON))
        limit = try Self.nonNegativeInteger(object["limit"], name: "limit") ?? 25
        skip = try Self.nonNegativeInteger(object["skip"], name: "skip") ?? 0
        sort = try object["sort"].map(Self.parseSort) ?? []
        if let rawFields = object["fields"] {
            guard case .array(let names) = rawFields else {
                throw QueryErrorKind.invalidFields.error("fields must be an array of field names.", field: "fields")
            }
            let paths = try names.map { name -> FieldPath in
                guard case .string(let text) = name else {
                    throw QueryErrorKind.invalidFields.error("fields must be an array of field names.", field: "fields")
                }
                return try FieldPath(parsing: text)
            }
            fields = paths.isEmpty ? nil : paths
        }
        switch object["bookmark"] {
        case nil, .null?, .string("nil")?: bookmark = nil
        case .string(let text)?: bookmark = text
        default: throw QueryErrorKind.invalidBookmark.error("bookmark must be a string.", field: "bookmark")
        }
        conflicts = try Self.boolean(object["conflicts"], name: "conflicts") ?? false
        executionStats = try Self.boolean(object["execution_stats"], name: "execution_stats") ?? false
        allowFallback = try Self.boolean(object["allow_fallback"], name: "allow_fallback") ?? true
        switch object["use_index"] {
        case nil, .null?, .array([])?: useIndex = nil
        case .string(let name)?: useIndex = [name]
        case .array(let names)? where names.count <= 2 && names.allSatisfy({ $0.stringValue != nil }):
            useIndex = names.compactMap(\.stringValue)
        default:
            throw QueryErrorKind.invalidValue.error("use_index must be \"ddoc\" or [\"ddoc\", \"name\"].", field: "use_index")
        }
    }

    /// Parses a Mango `sort` array (spec M-14).
    public static func parseSort(_ json: JSONValue) throws -> [SortField] {
        guard case .array(let entries) = json else {
            throw QueryErrorKind.invalidSortJSON.error("sort must be an array.", field: "sort")
        }
        let fields = try entries.map { entry -> SortField in
            switch entry {
            case .string(let name):
                return SortField(try FieldPath(parsing: name))
            case .object(let object) where object.count == 1:
                let (name, direction) = object.members[0]
                guard let direction = direction.stringValue, direction == "asc" || direction == "desc" else {
                    throw QueryErrorKind.invalidSortDirection.error("Sort directions are \"asc\" or \"desc\".", field: name)
                }
                return SortField(try FieldPath(parsing: name), descending: direction == "desc")
            default:
                throw QueryErrorKind.invalidSortJSON.error(
                    "Each sort entry is a field name or a one-key {\"field\": \"asc\"|\"desc\"} object.", field: "sort")
            }
        }
        if Set(fields.map(\.descending)).count > 1 {
            throw QueryErrorKind.unsupportedMixedSort.error("Sorts currently only support a single direction for all fields.", field: "sort")
        }
        return fields
    }

    private static func nonNegativeInteger(_ value: JSONValue?, name: String) throws -> Int? {
        guard let value else { return nil }
        guard let number = value.numberValue?.int64Value, number >= 0, case .number(.integer) = value else {
            throw QueryErrorKind.invalidValue.error("\(name) must be a non-negative integer.", field: name)
        }
        return Int(clamping: number)
    }

    private static func boolean(_ value: JSONValue?, name: String) throws -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else {
            throw QueryErrorKind.invalidValue.error("\(name) must be true or false.", field: name)
        }
        return flag
    }
}
