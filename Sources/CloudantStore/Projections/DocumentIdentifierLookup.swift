internal import CSQLite
internal import GRDB

/// Reads documents' `_id`s by row id for one projection read, on its connection and inside its
/// transaction, with one prepared statement: projection rows keep the row id only, and a caller that
/// wants the id of a row it is reading (``ProjectedRow/documentID``) pays one B-tree lookup.
final class DocumentIdentifierLookup {
    private typealias Documents = StoreSchema.Documents

    /// Kept so the prepared statement outlives every row of the read (GRDB finalises it with the connection).
    private let statement: Statement

    init(_ db: Database) throws {
        statement = try db.cachedStatement(
            sql: "SELECT \(Documents.id) FROM \(Documents.table) WHERE \(Documents.rowID) = ?")
    }

    /// The `_id` of the document in row `rowID`; nil when there is none (it cannot be gone while the
    /// projection row that names it is read in the same transaction).
    func identifier(ofRow rowID: Int64) -> String? {
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        sqlite3_reset(raw)
        sqlite3_bind_int64(raw, 1, rowID)
        guard sqlite3_step(raw) == SQLITE_ROW, let bytes = sqlite3_column_text(raw, 0) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, 0))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
