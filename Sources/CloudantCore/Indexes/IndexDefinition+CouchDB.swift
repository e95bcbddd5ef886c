/// CouchDB's JSON for indexes: the `POST /db/_index` body, the `def` that `GET /db/_index` lists, and the
/// `language: "query"` design documents indexes live in, so indexes replicate like any
/// design document and come back as the same indexes on the other side.
extension IndexDefinition {
    /// The design document id, `_design/<ddoc>`.
    public var designDocumentID: String { "_design/" + (designDocument ?? name) }

    /// Parses a `POST /db/_index` body as CouchDB's `mango_opts:validate_idx_create` does:
    /// `{"index": {"fields": […], "partial_filter_selector"?: {…}}, "ddoc"?: "x", "name"?: "y", "type"?: "json",
    /// "partitioned"?: bool, "w"?: n}`.
    ///
    /// Without `name` or `ddoc`, both default to the name CouchDB generates from the whole request
    /// (``generatedName(request:)``), so creating the same index twice finds the first, here or on CouchDB. A JSON index's `partial_filter_selector` is kept normalised, as CouchDB
    /// stores it. A text index (`"type": "text"`) takes `fields` as `[{"name": "title", "type": "string"}]`
    /// or `"all_fields"`, and an `analyzer` (or `default_analyzer`) named `standard`, `porter` or `simple`.
    ///
    /// ```swift
    /// let index = try IndexDefinition(indexRequest: JSONValue(parsing: #"{"index":{"fields":["age"]},"name":"by-age"}"#))
    /// ```
    /// - Throws: `CloudantError` with ``QueryErrorKind/missingRequiredKey`` (no `index` or no `fields`),
    ///   ``QueryErrorKind/invalidKey`` (a key CouchDB does not know, also inside a JSON index's `index`),
    ///   ``QueryErrorKind/invalidIndex``, ``QueryErrorKind/invalidIndexFieldsDefinition``,
    ///   ``QueryErrorKind/invalidIndexName``, ``QueryErrorKind/invalidEmptyString``,
    ///   ``QueryErrorKind/invalidString`` (a `type`, `name` or `ddoc` that is not a string),
    ///   `CloudantError.Code.invalidInput` on the field `_id` for a `ddoc` of `_design/` (CouchDB's `illegal_docid`),
    ///   ``QueryErrorKind/invalidPosInteger`` (`w`), ``QueryErrorKind/invalidValue`` (`partitioned`), or a
    ///   selector error for a bad `partial_filter_selector`; ``QueryErrorKind/indexNotImplemented`` for an
    ///   analyzer this store lacks.
    public init(indexRequest body: JSONValue) throws {
        guard case .object(let request) = body else {
            throw QueryErrorKind.invalidIndex.error(
                "The request needs an \"index\" object, like {\"index\": {\"fields\": [\"foo\"]}}.", field: "index")
        }
        guard let indexJSON = request["index"] else {
            throw QueryErrorKind.missingRequiredKey.error("Missing required key: index", field: "index")
        }
        let type: IndexType
        switch request["type"] {
        case nil, .string("json")?: type = .json
        case .string("text")?: type = .text
        case .string(let other)?:
            throw QueryErrorKind.invalidIndex.error("Invalid type for index: \(other)", field: "type")
        case let other?: throw QueryErrorKind.invalidString.error("Invalid string: \(ErlangTerm.format(other))", field: "type")
        }
        let name = try Self.name(request["name"], field: "name")
        let designDocument = try Self.name(request["ddoc"], field: "ddoc").map(Self.strippingDesignPrefix)
        if let w = request["w"], !(w.numberValue.map { if case .integer(let n) = $0 { n > 0 } else { false } } ?? false) {
            throw QueryErrorKind.invalidPosInteger.error("\(ErlangTerm.format(w)) is not an integer greater than zero", field: "w")
        }
        let partitioned: Bool?
        switch request["partitioned"] {
        case nil, .string("db_default")?: partitioned = nil
        case .bool(let flag)?: partitioned = flag
        default: throw QueryErrorKind.invalidValue.error("partitioned must be true or false.", field: "partitioned")
        }
        for key in request.keys where !Self.requestKeys.contains(key) {
            throw QueryErrorKind.invalidKey.error("Invalid key \(key) for this request.", field: key)
        }
        guard case .object(let index) = indexJSON else {
            throw QueryErrorKind.invalidIndex.error("JSON indexes must be an object, not: \(ErlangTerm.format(indexJSON))", field: "index")
        }
        let fields: [Field]
        var partial: JSONValue?
        var analyzer = TextAnalyzer.standard
        switch type {
        case .json:
            guard let fieldsJSON = index["fields"] else {
                throw QueryErrorKind.missingRequiredKey.error("Missing required key: fields", field: "fields")
            }
            fields = try Self.jsonFields(fieldsJSON)
            if let filter = index["partial_filter_selector"] {
                guard case .object = filter else {
                    throw QueryErrorKind.invalidSelectorJSON.error(
                        "The partial_filter_selector must be a JSON object.", field: "partial_filter_selector")
                }
                partial = try MangoSelector(filter).json
            }
            for key in index.keys where key != "fields" && key != "partial_filter_selector" {
                throw QueryErrorKind.invalidKey.error("Invalid key \(key) for this request.", field: key)
            }
        case .text:
            fields = try Self.textFields(index["fields"])
            partial = index["partial_filter_selector"] ?? index["selector"]
            if let partial { _ = try MangoSelector(partial) }  // Validates: the same error as in _find.
            analyzer = try Self.analyzer(index["analyzer"] ?? index["default_analyzer"] ?? request["analyzer"])
        }
        if partial == .object(JSONObject()) { partial = nil }
        self.init(
            name: "", fields: fields, partialFilterSelector: partial, type: type, analyzer: analyzer, partitioned: partitioned)
        let generated = name == nil || designDocument == nil ? Self.generatedName(request: request) : ""
        self.name = name ?? generated
        self.designDocument = designDocument ?? generated
    }

    /// The members of a `POST /db/_index` body (plus `analyzer`, which this store's text indexes read).
    private static let requestKeys: Set<String> = ["index", "type", "name", "ddoc", "w", "partitioned", "analyzer"]

    /// The index's `def` as `GET /db/_index` lists it: `{"fields": [{"foo": "asc"}], …}`.
    public var definitionJSON: JSONValue {
        var def = JSONObject()
        switch type {
        case .json:
            def["fields"] = .array(fields.map { .object(JSONObject([($0.path, .string($0.order.rawValue))])) })
        case .text:
            def["default_analyzer"] = .string(analyzer.rawValue)
            def["default_field"] = ["enabled": true, "analyzer": .string(analyzer.rawValue)]
            def["fields"] =
                fields.isEmpty
                ? "all_fields" : .array(fields.map { .object(JSONObject([($0.path, .string("string"))])) })
            def["index_array_lengths"] = true
        }
        if let partialFilterSelector { def["partial_filter_selector"] = partialFilterSelector }
        return .object(def)
    }

    /// The entry `GET /db/_index` lists for this index.
    ///
    /// - Parameter databaseIsPartitioned: Whether the database is partitioned, which an index follows
    ///   unless its design document says otherwise.
    public func listingJSON(databaseIsPartitioned: Bool = false) -> JSONValue {
        [
            "ddoc": .string(designDocumentID), "name": .string(name), "type": .string(type.rawValue),
            "partitioned": .bool(isPartitioned(inPartitionedDatabase: databaseIsPartitioned)), "def": definitionJSON,
        ]
    }

    /// Whether queries use the index per partition (`_partition/{p}/_find`) rather than over the whole
    /// database: its design document's `options.partitioned`, or else the database's own setting.
    public func isPartitioned(inPartitionedDatabase databaseIsPartitioned: Bool) -> Bool {
        partitioned ?? databaseIsPartitioned
    }

    /// The name CouchDB would give this index created by `POST /{db}/_index` with its definition and type
    /// alone (``generatedName(request:)``): the default name and design document of such a request.
    public var fingerprint: String {
        Self.generatedName(request: ["index": definitionJSON, "type": .string(type.rawValue)])
    }

    // MARK: Design documents

    /// The indexes a design document declares: the `views` of a `language: "query"` design document (JSON
    /// indexes) and its `indexes` (text indexes). Entries that are not index definitions are skipped: a
    /// replicated design document is data, not a request to validate.
    public static func declared(inDesignDocument id: String, body: JSONObject) -> [IndexDefinition] {
        guard body["language"]?.stringValue == "query", id.hasPrefix("_design/") else { return [] }
        let ddoc = strippingDesignPrefix(id)
        let partitioned = body["options"]?["partitioned"]?.boolValue
        var found: [IndexDefinition] = []
        for (name, view) in body["views"]?.objectValue?.members ?? [] {
            guard let map = view["map"]?.objectValue, let fields = map["fields"]?.objectValue, !fields.isEmpty,
                fields.keys.allSatisfy({ (try? FieldPath(parsing: $0)) != nil })
            else { continue }
            let parsed = fields.members.map { path, order in
                Field(path, order: order.stringValue == "desc" ? .descending : .ascending)
            }
            let partial = nonEmpty(map["partial_filter_selector"])
            if let partial, (try? MangoSelector(partial)) == nil { continue }
            found.append(
                IndexDefinition(
                    name: name, designDocument: ddoc, fields: parsed, partialFilterSelector: partial, partitioned: partitioned))
        }
        for (name, entry) in body["indexes"]?.objectValue?.members ?? [] {
            guard let index = entry["index"]?.objectValue,
                let fields = try? textFields(index["fields"]), Set(fields.map(\.path)).count == fields.count,
                let analyzer = try? analyzer(index["default_analyzer"])
            else { continue }
            let partial = nonEmpty(index["selector"])
            if let partial, (try? MangoSelector(partial)) == nil { continue }
            found.append(
                IndexDefinition(
                    name: name, designDocument: ddoc, fields: fields, partialFilterSelector: partial, type: .text,
                    analyzer: analyzer, partitioned: partitioned))
        }
        return found
    }

    /// `body` (a design document's, or a new one's) with this index added under its name, in CouchDB's
    /// shape; any other index or view of the same name in that section is replaced. A new design document
    /// records an explicit ``partitioned`` in its `options`.
    ///
    /// - Throws: `CloudantError` with ``QueryErrorKind/invalidPartitionedOption`` when the index's
    ///   ``partitioned`` differs from the option an existing design document carries (as CouchDB), and with
    ///   ``QueryErrorKind/invalidDesignDocumentLanguage`` when that document is not a `query` one.
    public func adding(toDesignDocument body: JSONObject?) throws -> JSONObject {
        if let body, body["language"] != "query" {
            // `mango_util:check_lang/1` names what `lists:keyfind/3` found: the member, or `false` without one.
            let found = body["language"].map { "{<<\"language\">>,\(ErlangTerm.format($0))}" } ?? "false"
            throw QueryErrorKind.invalidDesignDocumentLanguage.error(
                "Existing design doc has an invalid language: \(found)", field: "ddoc")
        }
        var document = body ?? JSONObject()
        let existing = body?["options"]?["partitioned"]?.boolValue
        if existing != partitioned, body != nil {
            throw QueryErrorKind.invalidPartitionedOption.error(
                "Requested partitioned option does not match existing value on design document \(designDocumentID).",
                field: "partitioned")
        }
        document["language"] = "query"
        switch type {
        case .json:
            var views = document["views"]?.objectValue ?? JSONObject()
            views[name] = [
                "map": [
                    "fields": .object(JSONObject(fields.map { ($0.path, .string($0.order.rawValue)) })),
                    "partial_filter_selector": partialFilterSelector ?? .object(JSONObject()),
                ],
                "reduce": "_count",
                "options": ["def": ["fields": .array(fields.map { .string($0.path) })]],
            ]
            document["views"] = .object(views)
        case .text:
            var indexes = document["indexes"]?.objectValue ?? JSONObject()
            indexes[name] = [
                "index": [
                    "default_analyzer": .string(analyzer.rawValue),
                    "default_field": ["enabled": true, "analyzer": .string(analyzer.rawValue)],
                    "selector": partialFilterSelector ?? .object(JSONObject()),
                    "fields": fields.isEmpty
                        ? "all_fields" : .array(fields.map { ["name": .string($0.path), "type": "string"] }),
                    "index_array_lengths": true,
                ],
                "analyzer": [
                    "name": "perfield", "default": .string(analyzer.rawValue),
                    "fields": ["$default": .string(analyzer.rawValue)],
                ],
            ]
            document["indexes"] = .object(indexes)
        }
        if body == nil, let partitioned { document["options"] = ["partitioned": .bool(partitioned)] }
        return document
    }

    /// `body` without the index `name` of this type; `nil` when the design document then declares nothing
    /// else (views, indexes or anything else non-empty), so it can be deleted.
    public static func removing(_ name: String, type: IndexType, fromDesignDocument body: JSONObject) -> JSONObject? {
        var document = body
        let section = type == .json ? "views" : "indexes"
        var entries = document[section]?.objectValue ?? JSONObject()
        entries[name] = nil
        document[section] = entries.isEmpty ? nil : .object(entries)
        let meaningful = document.keys.filter { !$0.hasPrefix("_") && $0 != "language" }
        return meaningful.isEmpty ? nil : document
    }

    /// A stored filter selector, or nil for none (`{}` in a design document means no filter). Spelled
    /// out because `nil` in a closure over `JSONValue` would read as JSON `null`.
    private static func nonEmpty(_ selector: JSONValue?) -> JSONValue? {
        guard let selector, selector != .object(JSONObject()) else { return Optional<JSONValue>.none }
        return selector
    }

    static func strippingDesignPrefix(_ name: String) -> String {
        name.hasPrefix("_design/") ? String(name.dropFirst("_design/".count)) : name
    }

    // MARK: Parsing helpers

    /// A JSON index's `fields`, read as CouchDB reads a sort (`mango_sort:new`). This store also refuses
    /// an empty list and a field named twice, which CouchDB accepts and no query can use well.
    private static func jsonFields(_ json: JSONValue?) throws -> [Field] {
        guard case .array(let entries)? = json else {
            throw QueryErrorKind.invalidSortJSON.error(
                "An index's \"fields\" is a list, like [\"foo\"] or [{\"foo\": \"asc\"}].", field: "fields")
        }
        guard !entries.isEmpty else {
            throw QueryErrorKind.invalidIndexFieldsDefinition.error(
                "An index needs a non-empty \"fields\" list, like [\"foo\"] or [{\"foo\": \"asc\"}].", field: "fields")
        }
        let fields = try entries.map { entry -> Field in
            guard let (path, descending) = SortEntry.parse(entry) else {
                throw QueryErrorKind.invalidSortField.error(
                    "Invalid sort field: each index field is a name or a one-key {\"field\": \"asc\"|\"desc\"} object.",
                    field: "fields")
            }
            var field = try Field(validating: path)
            field.order = descending ? .descending : .ascending
            return field
        }
        try SortEntry.requireOneDirection(fields.map { $0.order == .descending }, field: "fields")
        if Set(fields.map(\.path)).count != fields.count {
            throw QueryErrorKind.invalidIndexFieldsDefinition.error("An index lists each field once.", field: "fields")
        }
        return fields
    }

    /// Text fields: `"all_fields"`/absent (→ `[]`), or `[{"name": "f", "type": "string"}]`, or names.
    private static func textFields(_ json: JSONValue?) throws -> [Field] {
        switch json {
        case nil, .string("all_fields")?: return []
        case .array(let entries)?:
            return try entries.map { entry in
                switch entry {
                case .string(let path): return try Field(validating: path)
                case .object(let object):
                    if let path = object["name"]?.stringValue { return try Field(validating: path) }
                    if object.count == 1 { return try Field(validating: object.members[0].key) }
                    fallthrough
                default:
                    throw QueryErrorKind.invalidIndexFieldsDefinition.error(
                        "Text index fields are [{\"name\": \"field\", \"type\": \"string\"}] or \"all_fields\".",
                        field: "fields")
                }
            }
        default:
            throw QueryErrorKind.invalidIndexFieldsDefinition.error(
                "Text index fields are [{\"name\": \"field\", \"type\": \"string\"}] or \"all_fields\".", field: "fields")
        }
    }

    private static func analyzer(_ json: JSONValue?) throws -> TextAnalyzer {
        let name: String
        switch json {
        case nil: return .standard
        case .string(let text)?: name = text
        case .object(let object)? where object["name"]?.stringValue != nil:
            name = object["name"]?.stringValue ?? ""
        default:
            throw QueryErrorKind.invalidIndex.error("An analyzer is a name, like \"standard\".", field: "analyzer")
        }
        guard let analyzer = TextAnalyzer(rawValue: name) else {
            throw QueryErrorKind.indexNotImplemented.error(
                "The \(name) analyzer is not available; use standard, porter or simple.", field: "analyzer")
        }
        return analyzer
    }

    private static func name(_ json: JSONValue?, field: String) throws -> String? {
        switch json {
        case nil: return nil
        case .string("")?:
            throw QueryErrorKind.invalidEmptyString.error("Index name or ddoc cannot be empty string", field: field)
        case .string(let text)? where text != "_design/": return text
        case .string?:
            // CouchDB takes it, then refuses the design document's id (`couch_doc:validate_docid/2`).
            throw CloudantError(.invalidInput, "Illegal document id `_design/`", context: .init(documentID: "_design/", field: "_id"))
        case let other?: throw QueryErrorKind.invalidString.error("Invalid string: \(ErlangTerm.format(other))", field: field)
        }
    }
}

extension IndexDefinition.Field {
    /// A field whose path is a valid Mango field path.
    init(validating path: String) throws {
        _ = try FieldPath(parsing: path)
        self.init(path)
    }
}
