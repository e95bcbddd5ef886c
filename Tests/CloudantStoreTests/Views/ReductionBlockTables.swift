import CloudantTestSupport
import Foundation
import GRDB

/// What the reduction block tests read and change in a store's block tables directly, through a connection
/// of their own.
enum ReductionBlockTables {
    /// Empties every index's list of blocked reduces, so queries reduce every row until the next update.
    static func forget(_ temp: TemporaryStore) throws {
        let file = try DatabaseQueue(path: temp.store.fileURL.path)
        try file.write { db in
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'view%_reductions'") {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
    }

    /// The blocks the store keeps, how many of them are dirty, and the rows they hold.
    static func counts(_ temp: TemporaryStore) throws -> (blocks: Int, dirty: Int, rows: Int) {
        let file = try DatabaseQueue(path: temp.store.fileURL.path)
        return try file.read { db in
            var counts = (blocks: 0, dirty: 0, rows: 0)
            for table in try blockTables(db) {
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(dirty), 0), COALESCE(SUM(rows), 0) FROM \(table)")!
                counts.blocks += row[0]
                counts.dirty += row[1]
                counts.rows += row[2]
            }
            return counts
        }
    }

    /// Rewrites every stored partial with `change` (SQL over the column `partial`), returning how many blocks
    /// it changed: a query that then answers with the change read the blocks, not their rows.
    static func tamper(_ temp: TemporaryStore, set change: String) throws -> Int {
        let file = try DatabaseQueue(path: temp.store.fileURL.path)
        return try file.write { db in
            var changed = 0
            for table in try blockTables(db) {
                try db.execute(sql: "UPDATE \(table) SET partial = \(change) WHERE partial IS NOT NULL")
                changed += db.changesCount
            }
            return changed
        }
    }

    private static func blockTables(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'view%_blocks'")
    }
}
