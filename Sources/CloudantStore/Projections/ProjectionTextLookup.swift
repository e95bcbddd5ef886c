internal import CSQLite
internal import GRDB

/// Reads a text by an integer key for one projection read, on its connection and inside its transaction,
/// with one prepared statement. Projection rows hold integers where the text lives elsewhere: the
/// document's row id (its `_id` is in `documents`, see ``ProjectedRow/documentID``) and the numbers of
/// `.label` columns (their texts are in `projection_labels`).
final class ProjectionTextLookup {
    private typealias Documents = StoreSchema.Documents
    private typealias Labels = StoreSchema.ProjectionLabels

    /// Kept so the prepared statement outlives every row of the read (GRDB finalises it with the connection).
    private let statement: Statement
    /// Texts already read, when keys repeat from row to row (labels); nil when each key is read once (ids).
    private var remembered: [Int64: String]?

    private init(_ db: Database, sql: String, remembers: Bool) throws {
        statement = try db.cachedStatement(sql: sql)
        remembered = remembers ? [:] : nil
    }

    /// Documents' `_id`s by row id: one B-tree lookup each.
    static func documentIDs(_ db: Database) throws -> ProjectionTextLookup {
        try ProjectionTextLookup(
            db, sql: "SELECT \(Documents.id) FROM \(Documents.table) WHERE \(Documents.rowID) = ?", remembers: false)
    }

    /// Label texts by number, each read once per read (a read of a million rows meets a few dozen labels).
    static func labelTexts(_ db: Database) throws -> ProjectionTextLookup {
        try ProjectionTextLookup(
            db, sql: "SELECT \(Labels.text) FROM \(Labels.table) WHERE \(Labels.number) = ?", remembers: true)
    }

    /// The text of `key`; nil when there is none (a projection row read in the same transaction as the
    /// document or label it names always finds it).
    func text(of key: Int64) -> String? {
        if let known = remembered?[key] { return known }
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        sqlite3_reset(raw)
        sqlite3_bind_int64(raw, 1, key)
        guard sqlite3_step(raw) == SQLITE_ROW, let bytes = sqlite3_column_text(raw, 0) else { return nil }
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(raw, 0))), as: UTF8.self)
        remembered?[key] = text
        return text
    }
}
