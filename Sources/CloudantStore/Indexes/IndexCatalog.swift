internal import CloudantCore
internal import Foundation
internal import GRDB

/// The indexes a store keeps, derived from its `language: "query"` design documents: writing
/// such a design document (by `createIndex`, by a client, or by replication) creates and fills its indexes
/// in the same transaction, and deleting it drops them. Nothing is built lazily, so no query ever stalls
/// on a stale index (the original's CDTDatastore indexed on first query).
enum IndexCatalog {
    private typealias Columns = StoreSchema.MangoIndexes
    private typealias Documents = StoreSchema.Documents

    /// Every index, in (design document, name) order.
    static func all(in db: Database) throws -> [StoredIndex] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT \(Columns.tableName), \(Columns.definition) FROM \(Columns.table) "
                    + "ORDER BY \(Columns.designDocument), \(Columns.name)"))
        return try rows.map { row in
            let tableName: String = row[0]
            let definition: String = row[1]
            return try StoredIndex(tableName: tableName, definition: decode(definition, tableName: tableName))
        }
    }

    /// Makes the indexes of one design document match what its winning revision declares: drops those it
    /// no longer declares (or declares differently), creates and fills the new ones.
    ///
    /// - Parameter body: The winner's body, or nil when the design document is deleted.
    static func synchronise(designDocument id: String, body: JSONObject?, in db: Database) throws {
        let declared = body.map { IndexDefinition.declared(inDesignDocument: id, body: $0) } ?? []
        let ddoc = String(id.dropFirst("_design/".count))
        let existing = try all(in: db).filter { $0.definition.designDocument == ddoc }
        for index in existing where !declared.contains(index.definition) {
            try IndexTable.drop(index.tableName, in: db)
            try db.execute(sql: "DELETE FROM \(Columns.table) WHERE \(Columns.tableName) = ?", arguments: [index.tableName])
        }
        for definition in declared where !existing.contains(where: { $0.definition == definition }) {
            try create(definition, in: db)
        }
    }

    /// Creates an index's table, records it, and indexes every live document.
    private static func create(_ definition: IndexDefinition, in db: Database) throws {
        let prefix = definition.type == .json ? Columns.jsonTablePrefix : Columns.textTablePrefix
        let tableName = try StoreSchema.nextTableName(
            prefix: prefix, recordedIn: Columns.table, column: Columns.tableName, in: db)
        let index = try StoredIndex(tableName: tableName, definition: definition)
        try IndexTable.drop(index.tableName, in: db)  // A table left behind by a crash-free rollback cannot exist, but be sure.
        try IndexTable.create(index, in: db)
        try db.execute(
            sql: "INSERT INTO \(Columns.table) (\(Columns.tableName), \(Columns.designDocument), \(Columns.name), "
                + "\(Columns.type), \(Columns.definition)) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                index.tableName, definition.designDocument ?? definition.name, definition.name,
                definition.type.rawValue, encode(definition),
            ])
        try fill(index, in: db)
    }

    /// Indexes every live document: a JSON index in one sorted statement (``JSONIndexBuild``), a text index
    /// document by document (FTS5 takes rows in any order).
    private static func fill(_ index: StoredIndex, in db: Database) throws {
        guard index.definition.type == .text else { return try JSONIndexBuild.fill(index, in: db) }
        let cursor = try Row.fetchCursor(
            db,
            sql: "SELECT \(Documents.rowID), \(Documents.id), \(Documents.bodyJSON) FROM \(Documents.table) "
                + "WHERE \(Documents.deleted) = 0 AND \(Documents.body) IS NOT NULL "
                + "AND \(Documents.id) NOT LIKE '\\_design/%' ESCAPE '\\'")
        while let row = try cursor.next() {
            let rowID: Int64 = row[0]
            let id: String = row[1]
            let parsed = try row.withUnsafeData(atIndex: 2) { data in try data.map { try JSONValue(parsing: $0) } }
            guard case .object(let body)? = parsed else { continue }
            try IndexTable.addEntry(index, rowID: rowID, id: id, body: body, in: db)
        }
    }

    // MARK: Stored definitions

    /// The definition as stored: the design document, name and type, plus CouchDB's `def`.
    private static func encode(_ definition: IndexDefinition) -> String {
        var json: JSONObject = [
            "ddoc": .string(definition.designDocument ?? definition.name), "name": .string(definition.name),
            "type": .string(definition.type.rawValue), "def": definition.definitionJSON,
        ]
        if let partitioned = definition.partitioned { json["partitioned"] = .bool(partitioned) }
        return JSONValue.object(json).jsonString()
    }

    private static func decode(_ text: String, tableName: String) throws -> IndexDefinition {
        let json = try JSONValue(parsing: text)
        guard let ddoc = json["ddoc"]?.stringValue, let name = json["name"]?.stringValue,
            let type = json["type"]?.stringValue, let def = json["def"]
        else {
            throw CloudantError(.storeUnreadable, "The stored definition of index table \(tableName) is damaged.")
        }
        var request: JSONObject = ["index": def, "ddoc": .string(ddoc), "name": .string(name), "type": .string(type)]
        if let partitioned = json["partitioned"] { request["partitioned"] = partitioned }
        if type == "text", let analyzer = def["default_analyzer"] { request["analyzer"] = analyzer }
        return try IndexDefinition(indexRequest: .object(request))
    }
}
