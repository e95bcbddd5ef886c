internal import CloudantCore
internal import GRDB

/// One view index the store keeps: the rows table of a signature and how far it is up to date.
struct StoredViewIndex: Sendable, Hashable {
    var signature: String
    var tableName: String
    var language: String
    var definition: JSONValue
    /// The highest document sequence whose changes the rows hold.
    var updateSeq: Int64
    /// The database's purge sequence when the rows were last brought up to date.
    var purgeSeq: Int64
}

/// The `view_indexes` catalogue: which view indexes exist, their rows tables, and their progress. Internal to
/// the storage layer.
enum ViewIndexCatalog {
    private typealias Columns = StoreSchema.ViewIndexes
    private typealias Counts = StoreSchema.ViewIndexes.Counts

    private static let selectColumns = [
        Columns.signature, Columns.tableName, Columns.language, Columns.definition, Columns.updateSeq, Columns.purgeSeq,
    ].joined(separator: ", ")

    static func find(signature: String, in db: Database) throws -> StoredViewIndex? {
        try Row.fetchOne(
            db, sql: "SELECT \(selectColumns) FROM \(Columns.table) WHERE \(Columns.signature) = ?", arguments: [signature]
        ).map(record)
    }

    static func all(in db: Database) throws -> [StoredViewIndex] {
        try Row.fetchAll(db, sql: "SELECT \(selectColumns) FROM \(Columns.table) ORDER BY \(Columns.tableName)").map(record)
    }

    /// Records a new index and creates its empty rows table.
    static func create(signature: String, language: String, definition: JSONValue, in db: Database) throws -> StoredViewIndex {
        let tableName = try StoreSchema.nextTableName(
            prefix: Columns.tablePrefix, recordedIn: Columns.table, column: Columns.tableName, in: db)
        try ViewIndexTable.create(tableName, in: db)
        try db.execute(
            sql: "INSERT INTO \(Columns.table) (\(Columns.signature), \(Columns.tableName), \(Columns.language), \(Columns.definition)) "
                + "VALUES (?, ?, ?, ?)",
            arguments: [signature, tableName, language, definition.jsonString()])
        return StoredViewIndex(
            signature: signature, tableName: tableName, language: language, definition: definition, updateSeq: 0, purgeSeq: 0)
    }

    /// Drops an index: its rows, its counts and its catalogue row.
    static func drop(_ index: StoredViewIndex, in db: Database) throws {
        try ViewIndexTable.drop(index.tableName, in: db)
        try db.execute(sql: "DELETE FROM \(Counts.table) WHERE \(Counts.tableName) = ?", arguments: [index.tableName])
        try db.execute(sql: "DELETE FROM \(Columns.table) WHERE \(Columns.signature) = ?", arguments: [index.signature])
    }

    /// Records how far an index is up to date.
    static func setProgress(_ index: StoredViewIndex, updateSeq: Int64, purgeSeq: Int64, in db: Database) throws {
        try db.execute(
            sql: "UPDATE \(Columns.table) SET \(Columns.updateSeq) = ?, \(Columns.purgeSeq) = ? WHERE \(Columns.signature) = ?",
            arguments: [updateSeq, purgeSeq, index.signature])
    }

    /// Removes a purged document's rows from every index, in the purge's transaction.
    static func removeDocument(id: String, in db: Database) throws {
        for tableName in try String.fetchAll(db, sql: "SELECT \(Columns.tableName) FROM \(Columns.table)") {
            try ViewIndexTable.removeRows(of: id, from: tableName, in: db)
        }
    }

    private static func record(_ row: Row) throws -> StoredViewIndex {
        let definitionText: String = row[3]
        return StoredViewIndex(
            signature: row[0], tableName: row[1], language: row[2], definition: try JSONValue(parsing: definitionText),
            updateSeq: row[4], purgeSeq: row[5])
    }
}
