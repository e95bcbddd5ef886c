internal import CSQLite
internal import Foundation
internal import GRDB

/// `body_dictionaries`: the zstd dictionaries the store's compressed bodies name, one row each, never
/// updated and never reused (`AUTOINCREMENT`), so a dictionary once read stays right.
enum BodyDictionaryTable {
    static let table = "body_dictionaries"
    static let id = "id"
    static let kind = "kind"
    static let data = "data"
    /// How many documents the dictionary was trained from.
    static let sampleCount = "sample_count"

    static let createSQL = """
        CREATE TABLE body_dictionaries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            data BLOB NOT NULL,
            sample_count INTEGER NOT NULL
        );
        CREATE INDEX body_dictionaries_by_kind ON body_dictionaries(kind, id);
        """

    /// One dictionary's row, read with SQLite's C API: decoding runs inside SQL functions too, where only
    /// the raw connection is at hand.
    static func read(id: UInt32, connection: OpaquePointer) throws -> (kind: String, bytes: [UInt8])? {
        var statement: OpaquePointer?
        let sql = "SELECT \(kind), \(data) FROM \(table) WHERE \(Self.id) = ?"
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw DatabaseError(message: "Could not read the body dictionaries: " + String(cString: sqlite3_errmsg(connection)))
        }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, Int64(id))
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        let kind = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
        let count = Int(sqlite3_column_bytes(statement, 1))
        guard let blob = sqlite3_column_blob(statement, 1), count > 0 else { return nil }
        return (kind, Array(UnsafeRawBufferPointer(start: blob, count: count)))
    }

    /// ``latestByKind(in:)``, or none in a file without the table (a read-only store written before it).
    static func latestByKindIfPresent(in db: Database) throws -> [BodyDictionary] {
        try db.tableExists(table) ? latestByKind(in: db) : []
    }

    /// The newest dictionary of each kind, as the store compresses with them.
    static func latestByKind(in db: Database) throws -> [BodyDictionary] {
        let level = BodyCodec.level
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT \(id), \(kind), \(data) FROM \(table) WHERE \(id) IN (SELECT MAX(\(id)) FROM \(table) GROUP BY \(kind))")
        return rows.compactMap { row in
            let bytes: [UInt8] = Array(row[2] as Data)
            return BodyDictionary(id: UInt32(row[0] as Int64), kind: row[1], bytes: bytes, level: level)
        }
    }

    /// Stores a trained dictionary under the next id, written into its header; returns it digested.
    static func insert(trained: [UInt8], kind: String, sampleCount: Int, in db: Database, level: Int32) throws -> BodyDictionary? {
        let next = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) + 1 FROM sqlite_sequence WHERE name = ?", arguments: [table]) ?? 1
        guard next < Int64(UInt32.max) else { return nil }
        let bytes = BodyDictionary.renumbered(trained, id: UInt32(next))
        try db.execute(
            sql: "INSERT INTO \(table) (\(id), \(Self.kind), \(data), \(Self.sampleCount)) VALUES (?, ?, ?, ?)",
            arguments: [next, kind, Data(bytes), sampleCount])
        return BodyDictionary(id: UInt32(next), kind: kind, bytes: bytes, level: level)
    }
}
