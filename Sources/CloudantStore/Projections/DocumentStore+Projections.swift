internal import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    /// The names of the column projections this store keeps (declared by registered kinds, now or when an
    /// earlier process opened the file).
    public func projectionNames() async throws -> [String] {
        let cache = indexCache
        return try await read(.storeUnreadable) { db in try cache.projections(in: db).map(\.definition.name) }
    }

    /// Reads rows of a column projection in one read transaction, turning each into a value with
    /// `transform` (which runs on the reading thread; keep it to copying columns out).
    ///
    /// ```swift
    /// let steps = try await store.projectedRows(query) { row in
    ///     (row.double(at: 2) ?? 0, row.date(at: 1))
    /// }
    /// ```
    /// A read sees every committed write: projections are updated in the transaction that writes the
    /// document, so a deleted or replaced document is never read here afterwards.
    /// - Throws: `CloudantError.Code.invalidInput` for a projection or column that does not exist, or a
    ///   value whose type does not suit its column; `.storeUnreadable` when the store cannot be read.
    @inlinable
    public func projectedRows<Value: Sendable>(
        _ query: ProjectionQuery, _ transform: @escaping @Sendable (ProjectedRow) throws -> Value
    ) async throws -> [Value] {
        // Inlined into the caller, so the collecting is specialised for `Value`: an unspecialised generic
        // append looked up type metadata for every one of a million rows.
        let collected = ProjectedValues<Value>()
        try await forEachProjectedRow(query) { row in collected.values.append(try transform(row)) }
        return collected.values
    }

    /// Calls `body` with each row of `query`, in order, in one read transaction, on the reading thread: for
    /// callers that fold rows into their own structure instead of collecting an array.
    ///
    /// ```swift
    /// let total = Mutex(0.0)
    /// try await store.forEachProjectedRow(query) { row in total.withLock { $0 += row.double(at: 2) ?? 0 } }
    /// ```
    /// - Throws: As ``projectedRows(_:_:)``, and what `body` throws (which ends the read).
    public func forEachProjectedRow(_ query: ProjectionQuery, _ body: @escaping @Sendable (ProjectedRow) throws -> Void)
        async throws
    {
        let cache = indexCache
        try await read(.storeUnreadable) { db in
            let projection = try Self.storedProjection(named: query.projection, cache: cache, in: db)
            let (sql, arguments) = try Self.projectionSQL(query, projection, in: db)
            let positions = Dictionary(
                uniqueKeysWithValues: projection.definition.columns.enumerated().map { ($0.element.name, $0.offset) })
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            // The cursor steps the statement; each row is read in place through SQLite's accessors.
            let current = statement.sqliteStatement
            let identifiers = try ProjectionTextLookup.documentIDs(db)
            let labels = projection.isLabel.contains(true) ? try ProjectionTextLookup.labelTexts(db) : nil
            while try cursor.next() != nil {
                try body(
                    ProjectedRow(
                        statement: current, positions: positions, identifiers: identifiers, isLabel: projection.isLabel,
                        labels: labels))
            }
        }
    }

    /// The SELECT of a projection query: the document's row id, then the columns at `selected` (every column
    /// by default, in order). Every value is bound, and column names come from the definition. A `.label`
    /// column compares the number of its text (looked up in `db`).
    static func projectionSQL(
        _ query: ProjectionQuery, _ projection: StoredProjection, selecting selected: [Int]? = nil, in db: Database
    ) throws -> (String, StatementArguments) {
        let definition = projection.definition
        let columns = StoreSchema.ColumnProjections.self
        var filters: [String] = []
        var arguments = StatementArguments()
        for condition in query.conditions {
            guard let index = definition.columnIndex(condition.column) else {
                throw CloudantError(
                    .invalidInput, "Projection \(definition.name) has no column \(condition.column).",
                    context: .init(field: condition.column))
            }
            let column = valueSQL(of: definition.columns[index])
            switch condition.comparison {
            case .isNull, .isNotNull:
                filters.append("\(column) \(condition.comparison.rawValue)")
            default:
                filters.append("\(column) \(condition.comparison.rawValue) ?")
                let definedColumn = definition.columns[index]
                if definedColumn.type == .label {
                    arguments += [try labelBound(condition, for: definedColumn, projection.labels, in: db)]
                } else {
                    arguments += [try bound(condition.value, for: definedColumn)]
                }
            }
        }
        let order = definition.orderedBy.map(StoredProjection.sqlColumn) + [columns.documentRowID]
        let direction = query.descending ? " DESC" : ""
        var sql =
            "SELECT " + ([columns.documentRowID] + (selected ?? Array(definition.columns.indices)).map { valueSQL(of: definition.columns[$0]) })
                .joined(separator: ", ")
            + " FROM \(projection.tableName)"
            + (filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND "))
            + " ORDER BY " + order.map { $0 + direction }.joined(separator: ", ")
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [max(0, limit)]
        }
        return (sql, arguments)
    }

    /// A column's value as reads and conditions see it. An `.identifier` column's mark (an empty blob where
    /// the text is the document's `_id`) becomes that id, read from the document's row: rows read it back
    /// as text, and conditions compare the text.
    private static func valueSQL(of column: ColumnProjection.Column) -> String {
        let name = StoredProjection.sqlColumn(column.name)
        guard column.type == .identifier else { return name }
        let documents = StoreSchema.Documents.self
        return "(CASE WHEN typeof(\(name)) = 'blob' THEN (SELECT \(documents.id) FROM \(documents.table) "
            + "WHERE \(documents.rowID) = \(StoreSchema.ColumnProjections.documentRowID)) ELSE \(name) END)"
    }

    /// The number a condition on a `.label` column compares with: its text's, or one no label has (so
    /// `equal` matches no row and `notEqual` every labelled row) when the store has no such label.
    private static func labelBound(
        _ condition: ProjectionCondition, for column: ColumnProjection.Column, _ labels: ProjectionLabels, in db: Database
    ) throws -> DatabaseValue {
        guard condition.comparison == .equal || condition.comparison == .notEqual else {
            throw CloudantError(
                .invalidInput,
                "Column \(column.name) holds labels, which compare only for equality; \(condition.comparison.rawValue) cannot be used on it.",
                context: .init(field: column.name))
        }
        switch condition.value {
        case .text(let text): return (try labels.existingNumber(of: text, in: db) ?? 0).databaseValue
        case .null: return .null
        default:
            throw CloudantError(
                .invalidInput, "Column \(column.name) holds labels (text); \(condition.value) cannot be compared with them.",
                context: .init(field: column.name))
        }
    }

    /// A condition's value as its column compares: dates as seconds, numbers as numbers, text as text.
    private static func bound(_ value: ProjectedValue, for column: ColumnProjection.Column) throws -> DatabaseValue {
        switch (column.type, value) {
        case (.text, .text(let text)), (.json, .text(let text)), (.identifier, .text(let text)): return text.databaseValue
        case (.date, .date(let date)): return date.timeIntervalSince1970.databaseValue
        case (.real, .real(let double)), (.date, .real(let double)): return double.databaseValue
        case (.real, .integer(let integer)), (.integer, .integer(let integer)): return integer.databaseValue
        case (.integer, .real(let double)): return double.databaseValue
        case (_, .null): return .null
        default:
            throw CloudantError(
                .invalidInput, "Column \(column.name) holds \(column.type.rawValue) values; \(value) cannot be compared with them.",
                context: .init(field: column.name))
        }
    }
}

/// The values ``DocumentStore/projectedRows(_:_:)`` collects. Appended to only by the reading thread, one row
/// after another, and read once the read has returned, so the accesses never overlap.
@usableFromInline
final class ProjectedValues<Value>: @unchecked Sendable {
    @usableFromInline var values: [Value] = []

    @usableFromInline init() {}
}
