internal import CloudantCore

/// An index the store keeps: its definition, the table holding its entries, and what computing an entry
/// needs (parsed paths and the partial filter).
struct StoredIndex: Sendable {
    let tableName: String
    let definition: IndexDefinition
    let paths: [FieldPath]
    let partialFilter: MangoSelector?

    init(tableName: String, definition: IndexDefinition) throws {
        self.tableName = tableName
        self.definition = definition
        paths = try definition.fields.map { try FieldPath(parsing: $0.path) }
        partialFilter = try definition.partialFilterSelector.map { try MangoSelector($0) }
    }

    /// Whether the index holds `document` at all: it passes the partial filter (M-21).
    func admits(_ document: JSONObject) -> Bool {
        partialFilter?.matches(document) ?? true
    }

    /// The JSON index key columns of `document`: one collation key per field, or nil when a field is
    /// missing (such documents are not in the index, spec M-21).
    func jsonKeys(of document: JSONObject) -> [[UInt8]]? {
        var keys: [[UInt8]] = []
        keys.reserveCapacity(paths.count)
        for path in paths {
            guard case .found(let value) = path.lookup(in: .object(document)) else { return nil }
            keys.append(CollationKey.of(value))
        }
        return keys
    }

    /// The text of each text-index column of `document` (one per field, then the default field, which
    /// holds every indexed word), or nil when the document has none of the fields.
    func textColumns(of document: JSONObject) -> [String]? {
        if paths.isEmpty {
            var words: [String] = []
            for (key, value) in document.members where key != "_id" && key != "_rev" {
                Self.collectText(value, into: &words)
            }
            return words.isEmpty ? nil : [words.joined(separator: " ")]
        }
        var columns: [String] = []
        var all: [String] = []
        for path in paths {
            var words: [String] = []
            if case .found(let value) = path.lookup(in: .object(document)) { Self.collectText(value, into: &words) }
            columns.append(words.joined(separator: " "))
            all.append(contentsOf: words)
        }
        return all.isEmpty ? nil : columns + [all.joined(separator: " ")]
    }

    /// Strings, numbers and booleans under `value`, as text.
    private static func collectText(_ value: JSONValue, into words: inout [String]) {
        switch value {
        case .string(let text): words.append(text)
        case .number(let number): words.append(JSONValue.number(number).jsonString())
        case .bool(let flag): words.append(flag ? "true" : "false")
        case .null: break
        case .array(let elements): for element in elements { collectText(element, into: &words) }
        case .object(let object): for (_, member) in object.members { collectText(member, into: &words) }
        }
    }
}
