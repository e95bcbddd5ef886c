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
        if let known = remembered(text, on: connection) { return known }
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
        if let known = remembered(text, on: ObjectIdentifier(db)) { return known }
        return try Self.storedNumber(of: text, in: db)
    }

    /// The number of `text` committed, or learned by the transaction in progress on `connection`.
    private func remembered(_ text: String, on connection: ObjectIdentifier) -> Int64? {
        state.withLock { $0.numbers[text] ?? $0.pending[connection]?[text] }
    }

    private static func storedNumber(of text: String, in db: Database) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT \(Labels.number) FROM \(Labels.table) WHERE \(Labels.text) = ?"),
            arguments: [text])
    }
}
