internal import CloudantCore
internal import GRDB

/// Reads and writes `purge_infos`: what each purge request named, in purge sequence order.
enum PurgeInfoRecord {
    private typealias Table = StoreSchema.PurgeInfos

    static func insert(purgeSeq: Int64, id: String, revs: [String], in db: Database) throws {
        let json = JSONValue.array(revs.map { .string($0) }).jsonString()
        try db.execute(
            sql: "INSERT INTO \(Table.table) (\(Table.purgeSeq), \(Table.id), \(Table.revs)) VALUES (?, ?, ?)",
            arguments: [purgeSeq, id, json])
    }

    /// Drops the oldest rows beyond the newest `limit`.
    static func trim(keeping limit: Int, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM \(Table.table) WHERE \(Table.purgeSeq) <= "
                + "(SELECT MAX(\(Table.purgeSeq)) FROM \(Table.table)) - ?",
            arguments: [limit])
    }

    static func all(in db: Database) throws -> [(id: String, revs: [String])] {
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(Table.id), \(Table.revs) FROM \(Table.table) ORDER BY \(Table.purgeSeq)")
        return try rows.map { row -> (id: String, revs: [String]) in
            let revs = try JSONValue(parsing: row[Table.revs] as String).arrayValue?.compactMap(\.stringValue) ?? []
            let id: String = row[Table.id]
            return (id, revs)
        }
    }
}
