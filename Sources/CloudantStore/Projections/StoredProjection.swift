internal import CloudantCore
internal import Foundation
internal import GRDB

/// A projection the store keeps: its definition, the kind it copies, its table, and the SQL that writes a
/// row (built once).
///
/// A row holds the document's row id and the declared columns, nothing else: the `_id` is read from
/// `documents` when a caller asks for it (``ProjectedRow/documentID``), so it is stored once, a
/// `.label` column holds the number of its text (``ProjectionLabels``), and an `.identifier` column holds
/// ``sameAsDocumentID`` where its text is the document's `_id`.
struct StoredProjection: Sendable {
    private typealias Columns = StoreSchema.ColumnProjections

    let tableName: String
    let kind: String
    let definition: ColumnProjection
    let paths: [FieldPath]
    /// The positions of the `orderedBy` columns, in key order; a row must have them all.
    let keyPositions: [Int]
    /// Whether each column is a `.label` column, by position.
    let isLabel: [Bool]
    /// Whether each column is an `.identifier` column, by position.
    let isIdentifier: [Bool]
    /// The numbers of `.label` texts, shared by the store's projections.
    let labels: ProjectionLabels
    let insertSQL: String
    /// Deletes a document's row: by its row id when the table is keyed by it, else by the row's whole
    /// clustered key (the `orderedBy` values, then the row id).
    let deleteSQL: String

    init(tableName: String, kind: String, definition: ColumnProjection, labels: ProjectionLabels) throws {
        self.tableName = tableName
        self.kind = kind
        self.definition = definition
        self.labels = labels
        paths = try definition.columns.map { try FieldPath(parsing: $0.path) }
        keyPositions = definition.orderedBy.compactMap(definition.columnIndex)
        isLabel = definition.columns.map { $0.type == .label }
        isIdentifier = definition.columns.map { $0.type == .identifier }
        let names = [Columns.documentRowID] + definition.columns.map { Self.sqlColumn($0.name) }
        insertSQL =
            "INSERT OR REPLACE INTO \(tableName) (" + names.joined(separator: ", ") + ") VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        let key = definition.orderedBy.map(Self.sqlColumn) + [Columns.documentRowID]
        deleteSQL = "DELETE FROM \(tableName) WHERE " + key.map { "\($0) = ?" }.joined(separator: " AND ")
    }

    /// Whether the table is clustered by `orderedBy` columns (else it is keyed by the document's row id).
    var isClustered: Bool { !keyPositions.isEmpty }

    /// The SQL name of a declared column: prefixed, so no declared name meets the fixed columns or an SQL
    /// keyword (names are validated to letters, digits and `_`).
    static func sqlColumn(_ name: String) -> String { "c_" + name }

    /// Creates the table. With `orderedBy` columns the table is clustered by them (a `WITHOUT ROWID` table
    /// whose primary key is those columns, then the document's row): a range read walks one B-tree in key
    /// order and finds every column there, instead of jumping from an index entry to its row (measured: 4×
    /// less SQLite time over a million rows). Such a row is found again from the body it was written from,
    /// as a JSON index entry is (``update(rowID:body:previousBody:in:)``), so the table needs no second
    /// index by document (which would repeat the key columns in every entry).
    func create(in db: Database) throws {
        let columns = definition.columns.map { column in Self.sqlColumn(column.name) + " " + Self.sqlType(column.type) }
        if !isClustered {
            try db.execute(
                sql: "CREATE TABLE \(tableName) (\(Columns.documentRowID) INTEGER PRIMARY KEY, "
                    + columns.joined(separator: ", ") + ")")
            return
        }
        let key = definition.orderedBy.map(Self.sqlColumn) + [Columns.documentRowID]
        try db.execute(
            sql: "CREATE TABLE \(tableName) (\(Columns.documentRowID) INTEGER NOT NULL, "
                + columns.joined(separator: ", ") + ", PRIMARY KEY (" + key.joined(separator: ", ") + ")) WITHOUT ROWID")
    }

    private static func sqlType(_ type: ColumnProjection.ColumnType) -> String {
        switch type {
        case .text, .json: "TEXT"
        case .real, .date: "REAL"
        case .integer, .label: "INTEGER"
        // No affinity: text stays text, and the empty blob that stands for the document's id stays a blob.
        case .identifier: "BLOB"
        }
    }

    /// Brings the document's row up to date: removes the row `previousBody` made (for a clustered table,
    /// found by the key computed from it; otherwise by the row id), then writes the row of `body` when it
    /// is a live document of the projection's kind.
    ///
    /// - Parameters:
    ///   - body: The winner's body, nil when the document is deleted or gone.
    ///   - previousBody: The body the document's current row was written from (the previous winner's,
    ///     when it was live); evaluated only for a clustered table.
    func update(
        rowID: Int64, id: String, body: JSONObject?, previousBody: @autoclosure () throws -> JSONObject?, in db: Database
    ) throws {
        if isClustered {
            if let previous = try previousBody(), let values = try stored(row(of: previous), adding: false, in: db) {
                try db.cachedStatement(sql: deleteSQL).executeBound(in: db) { bind in
                    for position in keyPositions { Self.bind(values[position], with: &bind) }
                    bind.integer(rowID)
                }
            }
        } else if body.map(isOfKind) != true {
            try db.cachedStatement(sql: deleteSQL).execute(arguments: [rowID])
        }
        guard let body else { return }
        try insert(rowID: rowID, id: id, body: body, in: db)
    }

    /// Writes the row of a document when it is of the projection's kind and has every `orderedBy` field
    /// with its column's type (a document without one is not in the projection, as a Mango index leaves
    /// out documents missing an indexed field). A row of the document with the same key is replaced.
    func insert(rowID: Int64, id: String, body: JSONObject, in db: Database) throws {
        guard var values = try stored(row(of: body), adding: true, in: db) else { return }
        for position in values.indices where isIdentifier[position] && values[position] == .text(id) {
            values[position] = .sameAsDocumentID
        }
        // Bound directly: a bulk load writes one row per document (see `DirectBinding`).
        try db.cachedStatement(sql: insertSQL).executeBound(in: db) { bind in
            bind.integer(rowID)
            for value in values { Self.bind(value, with: &bind) }
        }
    }

    /// `values` as the table holds them: each `.label` text replaced by its number, a new label added when
    /// `adding` (writing a row); nil when a label is not stored and not `adding` (no row can hold it).
    private func stored(_ values: [ColumnValue]?, adding: Bool, in db: Database) throws -> [ColumnValue]? {
        guard var values, isLabel.contains(true) else { return values }
        for position in values.indices where isLabel[position] {
            guard case .text(let text) = values[position] else { continue }
            if adding {
                values[position] = .integer(try labels.number(of: text, in: db))
            } else {
                guard let number = try labels.existingNumber(of: text, in: db) else { return nil }
                values[position] = .integer(number)
            }
        }
        return values
    }

    private func isOfKind(_ body: JSONObject) -> Bool { EntityDocumentFormat.kindName(in: body) == kind }

    /// The column values of the row `body` makes; nil when it makes none (another kind, or an `orderedBy`
    /// field missing or of another type).
    func row(of body: JSONObject) -> [ColumnValue]? {
        guard isOfKind(body) else { return nil }
        var values: [ColumnValue] = []
        values.reserveCapacity(paths.count)
        for (column, path) in zip(definition.columns, paths) {
            var value = ColumnValue.null
            if case .found(let found) = path.lookup(in: .object(body)) { value = Self.columnValue(found, as: column.type) }
            values.append(value)
        }
        for position in keyPositions where values[position] == .null { return nil }
        return values
    }

    private static func bind(_ value: ColumnValue, with bind: inout DirectBinding) {
        switch value {
        case .null: bind.null()
        case .text(let text): bind.text(text)
        case .real(let real): bind.real(real)
        case .integer(let integer): bind.integer(integer)
        case .sameAsDocumentID: bind.blob([])
        }
    }

    /// A column's value as the row stores it.
    enum ColumnValue: Equatable {
        case null
        case text(String)
        case real(Double)
        case integer(Int64)
        /// An `.identifier` column's text that is the document's `_id`: stored as an empty blob, which no
        /// text value is, so the row does not repeat the id (reads put the id in its place).
        case sameAsDocumentID
    }

    /// A field's value as its column holds it; `.null` when the value is of another type.
    static func columnValue(_ value: JSONValue, as type: ColumnProjection.ColumnType) -> ColumnValue {
        switch (type, value) {
        case (.text, .string(let text)), (.label, .string(let text)), (.identifier, .string(let text)): return .text(text)
        case (.real, .number(let number)): return .real(number.doubleValue)
        case (.integer, .number(.integer(let integer))): return .integer(Int64(integer))
        case (.integer, .number(.double(let double))):
            guard let integer = Int64(exactly: double) else { return .null }
            return .integer(integer)
        case (.date, .string(let text)):
            return ISO8601Timestamp.date(from: text).map { .real($0.timeIntervalSince1970) } ?? .null
        case (.json, _): return .text(value.jsonString())
        default: return .null
        }
    }
}
