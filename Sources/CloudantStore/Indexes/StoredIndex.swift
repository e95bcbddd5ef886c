internal import CloudantCore

/// An index the store keeps: its definition, the table holding its entries, and what computing and
/// writing an entry needs (parsed paths, the partial filter, and its SQL, built once).
struct StoredIndex: Sendable {
    let tableName: String
    let definition: IndexDefinition
    let paths: [FieldPath]
    let partialFilter: MangoSelector?
    /// `INSERT` of one entry, and `DELETE` of a document's entry.
    let insertSQL: String
    let deleteSQL: String
    /// The pieces of a `_find` scan over a JSON index (empty for a text index).
    let scan: ScanSQL
    /// Whether a field or the partial filter names a member the stored body lacks: `_rev`, `_conflicts`,
    /// `_deleted_conflicts` or `_attachments` (see ``IndexedDocument``). Such a JSON index's entries are
    /// computed from the whole document, found by the document's row, and kept when only its conflicts change.
    let readsMetadata: Bool

    /// SQL text a `_find` over this index needs whatever the request: built with the catalogue rather
    /// than per query (string building was a third of a one-document `find`).
    struct ScanSQL: Sendable {
        /// `i.k0`, `i.k1`, …: the key columns, qualified by the scan's alias.
        var keyColumns: [String] = []
        /// The index table joined to the documents it indexes.
        var from = ""
        /// The scan's order (key columns, then the id) ascending and descending.
        var orderAscending = ""
        var orderDescending = ""
        /// `(i.k0, …, i.kN-1) >= (?, …)` and `… <= (?, …)` for the first N key columns, at N - 1.
        var atLeast: [String] = []
        var atMost: [String] = []
        /// A bookmark's bound on the whole order: after (ascending) or before (descending) it.
        var afterBookmark = ""
        var beforeBookmark = ""
        /// The rest of the order up to a row, that row included: through it ascending (`<=`), descending
        /// (`>=`). Written as the comparison and not as `NOT` of the bookmark's bound, so SQLite ends its
        /// index search there instead of reading the range to its end.
        var throughRowAscending = ""
        var throughRowDescending = ""

        init() {}

        init(tableName: String, columnCount: Int) {
            keyColumns = (0..<columnCount).map { "i.\(IndexTable.keyColumn($0))" }
            from =
                "\(tableName) AS i JOIN \(StoreSchema.Documents.table) AS d "
                + "ON d.\(StoreSchema.Documents.rowID) = i.\(IndexTable.documentRowID)"
            let ordering = keyColumns + ["i.\(IndexTable.id)"]
            orderAscending = ordering.map { "\($0) ASC" }.joined(separator: ", ")
            orderDescending = ordering.map { "\($0) DESC" }.joined(separator: ", ")
            func rowValue(_ columns: ArraySlice<String>) -> String { "(" + columns.joined(separator: ", ") + ")" }
            func placeholders(_ count: Int) -> String { "(" + Array(repeating: "?", count: count).joined(separator: ", ") + ")" }
            for count in stride(from: 1, through: columnCount, by: 1) {
                atLeast.append(rowValue(keyColumns.prefix(count)) + " >= " + placeholders(count))
                atMost.append(rowValue(keyColumns.prefix(count)) + " <= " + placeholders(count))
            }
            afterBookmark = rowValue(ordering[...]) + " > " + placeholders(ordering.count)
            beforeBookmark = rowValue(ordering[...]) + " < " + placeholders(ordering.count)
            throughRowAscending = rowValue(ordering[...]) + " <= " + placeholders(ordering.count)
            throughRowDescending = rowValue(ordering[...]) + " >= " + placeholders(ordering.count)
        }
    }

    init(tableName: String, definition: IndexDefinition) throws {
        self.tableName = tableName
        self.definition = definition
        paths = try definition.fields.map { try FieldPath(parsing: $0.path) }
        partialFilter = try definition.partialFilterSelector.map { try MangoSelector($0) }
        readsMetadata =
            definition.type == .json
            && (paths.contains { $0.segments.first.map(IndexedDocument.metadataMembers.contains) ?? false }
                || definition.partialFilterSelector.map(IndexedDocument.namesMetadata) ?? false)
        switch definition.type {
        case .json:
            scan = ScanSQL(tableName: tableName, columnCount: paths.count)
            insertSQL =
                "INSERT OR REPLACE INTO \(tableName) VALUES ("
                + Array(repeating: "?", count: paths.count + 2).joined(separator: ", ") + ")"
            deleteSQL =
                "DELETE FROM \(tableName) WHERE "
                + (paths.indices.map { "\(IndexTable.keyColumn($0)) = ?" } + ["\(IndexTable.id) = ?"]).joined(separator: " AND ")
        case .text:
            scan = ScanSQL()
            insertSQL =
                "INSERT INTO \(tableName) (rowid, "
                + (paths.indices.map(IndexTable.textColumn) + [IndexTable.allText]).joined(separator: ", ") + ") VALUES ("
                + Array(repeating: "?", count: paths.count + 2).joined(separator: ", ") + ")"
            deleteSQL = "DELETE FROM \(tableName) WHERE rowid = ?"
        }
    }

    /// Whether the index holds the document at all: it passes the partial filter. The filter sees
    /// the document with its `_id`.
    func admits(id: String, body: JSONObject) -> Bool {
        guard let partialFilter else { return true }
        return partialFilter.matches(IndexMaintainer.indexable(id: id, body: body))
    }

    /// The JSON index key columns of a whole document as ``IndexedDocument`` assembles it (`_id`, `_rev`, the
    /// body and the metadata members), when the index admits it; nil when it holds no entry for it.
    func jsonKeys(document: JSONObject) -> [[UInt8]]? {
        if let partialFilter, !partialFilter.matches(document) { return nil }
        var keys: [[UInt8]] = []
        keys.reserveCapacity(paths.count)
        for path in paths {
            guard case .found(let value) = path.lookup(in: .object(document)) else { return nil }
            keys.append(CollationKey.of(value))
        }
        return keys
    }

    /// The JSON index key columns of a document: one collation key per field, or nil when a field is
    /// missing (such documents are not in the index).
    func jsonKeys(id: String, body: JSONObject) -> [[UInt8]]? {
        var keys: [[UInt8]] = []
        keys.reserveCapacity(paths.count)
        for path in paths {
            let lookup: FieldPath.Lookup
            if path.segments.first == "_id" {
                lookup = FieldPath(Array(path.segments.dropFirst())).lookup(in: .string(id))
            } else {
                lookup = path.lookup(in: .object(body))
            }
            guard case .found(let value) = lookup else { return nil }
            keys.append(CollationKey.of(value))
        }
        return keys
    }

    /// The text of each text-index column of a document (one per field, then the default field, which
    /// holds every indexed word), or nil when the document has none of the fields.
    func textColumns(of body: JSONObject) -> [String]? {
        if paths.isEmpty {
            var words: [String] = []
            for (_, value) in body.members { Self.collectText(value, into: &words) }
            return words.isEmpty ? nil : [words.joined(separator: " ")]
        }
        var columns: [String] = []
        var all: [String] = []
        for path in paths {
            var words: [String] = []
            if case .found(let value) = path.lookup(in: .object(body)) { Self.collectText(value, into: &words) }
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
