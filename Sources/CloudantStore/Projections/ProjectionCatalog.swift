internal import CloudantCore
internal import Foundation
internal import GRDB

/// The projections a store keeps, recorded in the file (so every process writing it keeps them in step,
/// whatever plugins it registered) and created from the kinds that declare them when a store opens.
enum ProjectionCatalog {
    private typealias Columns = StoreSchema.ColumnProjections
    private typealias Documents = StoreSchema.Documents

    /// Every projection, by name; none in a file older than projections (opened read-only, unmigrated).
    ///
    /// - Parameter labels: What numbers `.label` texts have; the store's cache passes the one it keeps, so
    ///   committed labels are not looked up again.
    static func all(in db: Database, labels: ProjectionLabels = ProjectionLabels()) throws -> [StoredProjection] {
        guard try db.tableExists(Columns.table) else { return [] }
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT \(Columns.tableName), \(Columns.kind), \(Columns.definition) FROM \(Columns.table) "
                    + "ORDER BY \(Columns.name)"))
        return try rows.map { row in
            let tableName: String = row[0]
            let kind: String = row[1]
            let text: String = row[2]
            guard let definition = ColumnProjection(definitionJSON: try JSONValue(parsing: text)) else {
                throw CloudantError(.storeUnreadable, "The stored definition of projection table \(tableName) is damaged.")
            }
            return try StoredProjection(tableName: tableName, kind: kind, definition: definition, labels: labels)
        }
    }

    /// Makes the store hold `definition` for `kind`: nothing when it already does, else (re)creates its
    /// table and fills it from the kind's live documents, in the caller's transaction.
    static func declare(_ definition: ColumnProjection, kind: String, in db: Database) throws {
        let existing = try all(in: db).first { $0.definition.name == definition.name }
        if let existing, existing.kind == kind, existing.definition == definition { return }
        if let existing {
            try db.execute(sql: "DROP TABLE IF EXISTS \(existing.tableName)")
            try db.execute(sql: "DELETE FROM \(Columns.table) WHERE \(Columns.name) = ?", arguments: [definition.name])
        }
        let tableName = try StoreSchema.nextTableName(
            prefix: Columns.tablePrefix, recordedIn: Columns.table, column: Columns.tableName, in: db)
        let projection = try StoredProjection(tableName: tableName, kind: kind, definition: definition, labels: ProjectionLabels())
        try db.execute(sql: "DROP TABLE IF EXISTS \(projection.tableName)")
        try projection.create(in: db)
        try db.execute(
            sql: "INSERT INTO \(Columns.table) (\(Columns.name), \(Columns.kind), \(Columns.tableName), \(Columns.definition)) "
                + "VALUES (?, ?, ?, ?)",
            arguments: [definition.name, kind, projection.tableName, definition.definitionJSON.jsonString()])
        try fill(projection, in: db)
    }

    /// Copies every live document of the projection's kind.
    private static func fill(_ projection: StoredProjection, in db: Database) throws {
        let cursor = try Row.fetchCursor(
            db,
            sql: "SELECT \(Documents.rowID), \(Documents.bodyJSON), \(Documents.id) FROM \(Documents.table) "
                + "WHERE \(Documents.kind) = \(StoreSchema.DocumentKinds.numberOfBoundName) AND \(Documents.deleted) = 0 "
                + "AND \(Documents.body) IS NOT NULL",
            arguments: [projection.kind])
        while let row = try cursor.next() {
            let parsed = try row.withUnsafeData(atIndex: 1) { data in try data.map { try JSONValue(parsing: $0) } }
            guard case .object(let body)? = parsed else { continue }
            try projection.insert(rowID: row[0], id: row[2], body: body, in: db)
        }
    }

    /// Rebuilds every projection table in today's layout (``StoredProjection/create(in:)``) with the rows
    /// it holds, in the caller's transaction: for a file whose tables were written in an earlier layout.
    static func rebuildTables(in db: Database) throws {
        for projection in try all(in: db) where try db.tableExists(projection.tableName) {
            let previous = projection.tableName + "_previous_layout"
            let columns = ([Columns.documentRowID] + projection.definition.columns.map { StoredProjection.sqlColumn($0.name) })
                .joined(separator: ", ")
            try db.execute(sql: "DROP TABLE IF EXISTS \(previous)")
            try db.execute(sql: "ALTER TABLE \(projection.tableName) RENAME TO \(previous)")
            try projection.create(in: db)
            try db.execute(sql: "INSERT INTO \(projection.tableName) (\(columns)) SELECT \(columns) FROM \(previous)")
            // The earlier layout's index by document goes with its table.
            try db.execute(sql: "DROP TABLE \(previous)")
        }
    }

    /// Declares the projections of every registered kind (run when a store opens).
    /// - Throws: `CloudantError.Code.invalidInput` when two kinds declare projections with one name.
    static func declareRegistered(_ registry: EntityRegistry, in db: Database) throws {
        var owners: [String: String] = [:]
        for kind in registry.kinds {
            for projection in kind.projections {
                if let owner = owners.updateValue(kind.name, forKey: projection.name), owner != kind.name {
                    throw CloudantError(
                        .invalidInput,
                        "Kinds \(owner) and \(kind.name) both declare projection \(projection.name); rename one.",
                        context: .init(kind: kind.name, field: projection.name))
                }
                try declare(projection, kind: kind.name, in: db)
            }
        }
    }
}
