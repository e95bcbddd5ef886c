internal import CloudantCore
internal import Foundation
internal import GRDB

/// The SQL of the `pending_writes` table. Internal to the storage layer.
enum PendingWriteRecord {
    private typealias Table = StoreSchema.PendingWrites

    /// What a new queue row holds before it has a position.
    struct New {
        var documentID: String
        var rev: String
        var action: PendingWrite.Action
        var kind: String?
    }

    /// Appends writes for `remote` in order, returning them with their positions.
    static func append(_ writes: [New], remote: String, at date: Date, in db: Database) throws -> [PendingWrite] {
        // The date as it reads back (seconds since 1970 in a REAL), so a write equals its re-read queue entry.
        let date = Date(timeIntervalSince1970: date.timeIntervalSince1970)
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(Table.table) (\(Table.remote), \(Table.documentID), \(Table.rev), \(Table.action), "
                + "\(Table.kind), \(Table.enqueuedAt)) VALUES (?, ?, ?, ?, ?, ?)")
        return try writes.map { write in
            try statement.execute(arguments: [
                remote, write.documentID, write.rev, write.action.rawValue, write.kind, date.timeIntervalSince1970,
            ])
            return PendingWrite(
                id: db.lastInsertedRowID, remote: remote, documentID: write.documentID, rev: write.rev,
                action: write.action, kind: write.kind, enqueuedAt: date)
        }
    }

    /// The queue for `remote` (every remote when nil) in order, from position `after` on.
    static func fetch(remote: String?, after: Int64, limit: Int?, in db: Database) throws -> [PendingWrite] {
        var sql = "SELECT * FROM \(Table.table) WHERE \(Table.position) > ?"
        var arguments: StatementArguments = [after]
        if let remote {
            sql += " AND \(Table.remote) = ?"
            _ = arguments.append(contentsOf: [remote])
        }
        sql += " ORDER BY \(Table.position)"
        if let limit {
            sql += " LIMIT ?"
            _ = arguments.append(contentsOf: [limit])
        }
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map(pendingWrite(from:))
    }

    static func count(remote: String?, in db: Database) throws -> Int {
        if let remote {
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Table.table) WHERE \(Table.remote) = ?", arguments: [remote]) ?? 0
        }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Table.table)") ?? 0
    }

    static func remove(positions: [Int64], in db: Database) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM \(Table.table) WHERE \(Table.position) = ?")
        for position in positions { try statement.execute(arguments: [position]) }
    }

    static func removeAll(remote: String?, in db: Database) throws -> Int {
        if let remote {
            try db.execute(sql: "DELETE FROM \(Table.table) WHERE \(Table.remote) = ?", arguments: [remote])
        } else {
            try db.execute(sql: "DELETE FROM \(Table.table)")
        }
        return db.changesCount
    }

    static func recordAttempt(positions: [Int64], error: String?, at date: Date, in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "UPDATE \(Table.table) SET \(Table.attempts) = \(Table.attempts) + 1, \(Table.lastError) = ?, "
                + "\(Table.lastAttemptAt) = ? WHERE \(Table.position) = ?")
        for position in positions { try statement.execute(arguments: [error, date.timeIntervalSince1970, position]) }
    }

    private static func pendingWrite(from row: Row) throws -> PendingWrite {
        let actionName: String = row[Table.action]
        guard let action = PendingWrite.Action(rawValue: actionName) else {
            throw CloudantError(
                .storeUnreadable, "A pending write has an unknown action '\(actionName)'.",
                context: .init(documentID: row[Table.documentID], field: Table.action))
        }
        let lastAttempt: Double? = row[Table.lastAttemptAt]
        return PendingWrite(
            id: row[Table.position], remote: row[Table.remote], documentID: row[Table.documentID], rev: row[Table.rev],
            action: action, kind: row[Table.kind], enqueuedAt: Date(timeIntervalSince1970: row[Table.enqueuedAt]),
            attempts: row[Table.attempts], lastError: row[Table.lastError],
            lastAttemptAt: lastAttempt.map(Date.init(timeIntervalSince1970:)))
    }
}
