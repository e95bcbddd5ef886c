internal import CloudantCore
internal import Foundation
internal import GRDB

/// The `document_expiry` rows: when each live document with an expiry time expires.
enum ExpiryRecord {
    private typealias Table = StoreSchema.DocumentExpiry

    /// The expiry time a body's `field` holds, in seconds since 1970: a number of seconds, or an ISO 8601
    /// timestamp (`2026-11-26T15:00:00Z`, with an offset or fractional seconds). Nil for any other value:
    /// such a document never expires.
    static func time(in body: JSONObject, field: String) -> Double? {
        switch body[field] {
        case .number(let number)?: number.doubleValue
        case .string(let text)?: ISO8601Timestamp.date(from: text)?.timeIntervalSince1970
        default: nil
        }
    }

    /// Records (or clears) a document's expiry after its winner changed (`body` nil: deleted or gone).
    static func update(rowID: Int64, body: JSONObject?, field: String, in db: Database) throws {
        if let time = body.flatMap({ time(in: $0, field: field) }) {
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO \(Table.table) (\(Table.documentRowID), \(Table.expiresAt)) VALUES (?, ?)")
            try statement.execute(arguments: [rowID, time])
        } else {
            let statement = try db.cachedStatement(sql: "DELETE FROM \(Table.table) WHERE \(Table.documentRowID) = ?")
            try statement.execute(arguments: [rowID])
        }
    }

    /// The earliest expiry time recorded, if any.
    private static let nextSQL = "SELECT MIN(\(Table.expiresAt)) FROM \(Table.table)"

    static func next(in db: Database) throws -> Double? {
        // Read straight from SQLite: every write transaction asks (see `Statement.fetchFirstRow`).
        try db.cachedStatement(sql: nextSQL).fetchFirstRow(in: db) { $0.real(0) } ?? nil
    }

    /// The ids of the documents expired at `now`, earliest first.
    static func due(at now: Double, limit: Int, in db: Database) throws -> [String] {
        let documents = StoreSchema.Documents.self
        return try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT d.\(documents.id) FROM \(Table.table) e JOIN \(documents.table) d ON d.\(documents.rowID) = e.\(Table.documentRowID)
                    WHERE e.\(Table.expiresAt) <= ? ORDER BY e.\(Table.expiresAt) LIMIT ?
                    """),
            arguments: [now, limit])
    }

    /// Rebuilds every row for `field` (nil: documents no longer expire): one scan of the live documents.
    static func rebuild(field: String?, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(Table.table)")
        guard let field else { return }
        let documents = StoreSchema.Documents.self
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT \(documents.rowID), \(documents.bodyJSON) FROM \(documents.table)
                WHERE \(documents.deleted) = 0 AND \(documents.body) IS NOT NULL AND json_extract(\(documents.bodyJSON), ?) IS NOT NULL
                """,
            arguments: ["$." + field])
        while let row = try rows.next() {
            let body: String = row[1]
            guard case .object(let object) = try JSONValue(parsing: Array(body.utf8)) else { continue }
            try update(rowID: row[0], body: object, field: field, in: db)
        }
    }
}
