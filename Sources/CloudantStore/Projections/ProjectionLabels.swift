internal import CSQLite
internal import GRDB
internal import Synchronization

/// The numbers that stand for the texts of `.label` projection columns (``StoreSchema/ProjectionLabels``):
/// each distinct text is stored once and a row holds its number, one or two bytes where the text took
/// dozens (a quantity sample's type identifier, unit, source and device names).
///
/// Numbers are given in the caller's write transaction, so a label and the rows that use it commit or roll
/// back together. What this object remembers across transactions is only what has committed: a number
/// learned in a transaction (looked up or just inserted) is kept aside for that connection and remembered
/// when the transaction commits, forgotten when it rolls back, so a rolled-back label is never reused by
/// number.
final class ProjectionLabels: Sendable {
    private typealias Labels = StoreSchema.ProjectionLabels

    private struct State {
        /// Committed labels.
        var numbers: [String: Int64] = [:]
        /// Labels learned by the transaction in progress on each connection, not yet committed.
        var pending: [ObjectIdentifier: [String: Int64]] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// The number of `text`, inserting it as a new label when the store has none: for writing a row.
    func number(of text: String, in db: Database) throws -> Int64 {
        let connection = ObjectIdentifier(db)
        if let known = state.withLock({ $0.numbers[text] ?? $0.pending[connection]?[text] }) { return known }
        let number: Int64
        if let stored = try Self.storedNumber(of: text, in: db) {
            number = stored
        } else {
            try db.cachedStatement(sql: "INSERT INTO \(Labels.table) (\(Labels.text)) VALUES (?)").execute(arguments: [text])
            number = db.lastInsertedRowID
        }
        let firstOfTransaction = state.withLock { state in
            let first = state.pending[connection] == nil
            state.pending[connection, default: [:]][text] = number
            return first
        }
        if firstOfTransaction {
            db.afterNextTransaction(
                onCommit: { [self] _ in
                    state.withLock { state in
                        if let learned = state.pending.removeValue(forKey: connection) {
                            state.numbers.merge(learned) { _, new in new }
                        }
                    }
                },
                onRollback: { [self] _ in _ = state.withLock { $0.pending.removeValue(forKey: connection) } })
        }
        return number
    }

    /// The number of `text` when the store has it as a label, without adding it: for a condition or for
    /// finding the row an earlier body wrote (no row can hold a label that does not exist).
    func existingNumber(of text: String, in db: Database) throws -> Int64? {
        let connection = ObjectIdentifier(db)
        if let known = state.withLock({ $0.numbers[text] ?? $0.pending[connection]?[text] }) { return known }
        return try Self.storedNumber(of: text, in: db)
    }

    private static func storedNumber(of text: String, in db: Database) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT \(Labels.number) FROM \(Labels.table) WHERE \(Labels.text) = ?"),
            arguments: [text])
    }
}

/// Reads label texts by number for one projection read, on its connection and inside its transaction:
/// one prepared statement, and each number looked up once per read (a read of a million rows meets a few
/// dozen labels).
final class ProjectionLabelLookup {
    private typealias Labels = StoreSchema.ProjectionLabels

    /// Kept so the prepared statement outlives every row of the read (GRDB finalises it with the connection).
    private let statement: Statement
    private var texts: [Int64: String] = [:]

    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: "SELECT \(Labels.text) FROM \(Labels.table) WHERE \(Labels.number) = ?")
    }

    /// The text of label `number`; nil when there is none (a row read in the same transaction as its
    /// label always finds it).
    func text(of number: Int64) -> String? {
        if let known = texts[number] { return known }
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        sqlite3_reset(raw)
        sqlite3_bind_int64(raw, 1, number)
        guard sqlite3_step(raw) == SQLITE_ROW, let bytes = sqlite3_column_text(raw, 0) else { return nil }
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(raw, 0))), as: UTF8.self)
        texts[number] = text
        return text
    }
}
