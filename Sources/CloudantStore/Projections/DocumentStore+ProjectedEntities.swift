public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    /// The entities whose projection rows `query` selects, in the rows' order, read with the rows in one read
    /// transaction: each row's document is there, whatever commits meanwhile. Documents are found by the row
    /// id the projection keeps, not by their `_id`.
    ///
    /// ```swift
    /// let june = ProjectionQuery(
    ///     projection: "health-quantity-samples",
    ///     where: [.init("typeIdentifier", .equal, .text("HKQuantityTypeIdentifierHeartRate")),
    ///             .init("start", .greaterOrEqual, .date(june1)), .init("start", .less, .date(july1))])
    /// let heartRates = try await store.entities(QuantitySample.self, projected: june)
    /// ```
    ///
    /// With `column`, a query whose `limit` cuts its rows also gives the rows past the limit that share the
    /// last row's value there, so a caller that orders ties its own way (by id, say) can cut the page itself.
    /// - Throws: `CloudantError` `.invalidInput` for a projection or column that does not exist, a projection
    ///   of another kind than `type`'s, or a tie column holding labels or identifiers; `.unknownEntityType`
    ///   when `type` is not registered; `.invalidInput` naming a document that no longer decodes;
    ///   `.storeUnreadable` when the store cannot be read.
    public func entities<Entity: CloudantEntity>(
        _ type: Entity.Type, projected query: ProjectionQuery, completingTiesOf column: String? = nil
    ) async throws -> [Entity] where Entity.ID: CustomStringConvertible {
        let codec = EntityCodec(kind: try options.entityKind(for: type))
        let kindName = codec.kind.name
        let cache = indexCache
        let documents = try await read(.storeUnreadable) { db -> [JSONObject] in
            let projection = try Self.storedProjection(named: query.projection, cache: cache, in: db)
            guard projection.kind == kindName else {
                throw CloudantError(
                    .invalidInput, "Projection \(query.projection) keeps '\(projection.kind)' documents, not '\(kindName)'.",
                    context: .init(kind: kindName, field: query.projection))
            }
            let tiePosition = try column.map { try Self.tiePosition(of: $0, in: projection) }
            var rows = try Self.rowIDs(query, projection, tieColumn: tiePosition, in: db)
            if let column, let limit = query.limit, rows.count == limit, let last = rows.last?.value,
                let value = Self.projectedValue(last)
            {
                rows.removeAll { $0.value == last }
                var ties = query
                ties.limit = nil
                ties.conditions.append(ProjectionCondition(column, .equal, value))
                rows += try Self.rowIDs(ties, projection, tieColumn: nil, in: db)
            }
            // Read as `_find` reads a candidate (the winner's revision from the tree's bytes, no tree built).
            let statement = try db.cachedStatement(
                sql: "SELECT \(QueryExecutor.selectColumns) FROM \(StoreSchema.Documents.table) AS d "
                    + "WHERE d.\(StoreSchema.Documents.rowID) = ? AND d.\(StoreSchema.Documents.deleted) = 0")
            return try rows.compactMap { row in
                try statement.fetchFirstRow(in: db) { $0.integer(row.rowID) } read: { row in
                    try QueryExecutor.document(from: row, conflicts: false)
                } ?? nil
            }
        }
        return try documents.map(codec.entity(from:))
    }

    /// The stored projection named `name`.
    static func storedProjection(named name: String, cache: IndexCatalogCache, in db: Database) throws -> StoredProjection {
        guard let projection = try cache.projections(in: db).first(where: { $0.definition.name == name }) else {
            throw CloudantError(
                .invalidInput,
                "This store keeps no projection named \(name); register the kind that declares it before opening the store.",
                context: .init(field: name))
        }
        return projection
    }

    /// The position of a column whose stored values compare as they read (not labels, whose rows hold
    /// numbers, nor identifiers, whose rows may hold a mark).
    private static func tiePosition(of name: String, in projection: StoredProjection) throws -> Int {
        guard let position = projection.definition.columnIndex(name) else {
            throw CloudantError(
                .invalidInput, "Projection \(projection.definition.name) has no column \(name).", context: .init(field: name))
        }
        guard !projection.isLabel[position], !projection.isIdentifier[position] else {
            throw CloudantError(
                .invalidInput, "Ties can be completed on columns of values, not of labels or identifiers: \(name) is not one.",
                context: .init(field: name))
        }
        return position
    }

    /// The document row ids of a query's rows, in order, each with its value in `tieColumn`.
    private static func rowIDs(
        _ query: ProjectionQuery, _ projection: StoredProjection, tieColumn: Int?, in db: Database
    ) throws -> [(rowID: Int64, value: DatabaseValue)] {
        let (sql, arguments) = try projectionSQL(query, projection, selecting: tieColumn.map { [$0] } ?? [], in: db)
        let cursor = try Row.fetchCursor(try db.cachedStatement(sql: sql), arguments: arguments)
        var rows: [(rowID: Int64, value: DatabaseValue)] = []
        while let row = try cursor.next() {
            rows.append((row[0], tieColumn == nil ? .null : row[1]))
        }
        return rows
    }

    /// A stored value as a condition compares it.
    private static func projectedValue(_ value: DatabaseValue) -> ProjectedValue? {
        switch value.storage {
        case .double(let double): .real(double)
        case .int64(let integer): .integer(integer)
        case .string(let text): .text(text)
        case .null, .blob: nil
        }
    }
}
