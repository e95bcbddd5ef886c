import Foundation
import GRDB

/// The SQLite access layer candidate we adopted: GRDB's `DatabasePool` (WAL, one writer, concurrent
/// readers) with cached prepared statements, configured as the store configures it.
final class GRDBCandidate {
    let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous=NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY, rev TEXT NOT NULL, body BLOB NOT NULL, seq INTEGER NOT NULL)")
        }
    }

    func insert(_ batches: [ArraySlice<Workload.Row>]) throws {
        for batch in batches {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO docs (id, rev, body, seq) VALUES (?, ?, ?, ?)")
                for row in batch {
                    try statement.execute(arguments: [row.id, row.rev, Data(row.body), row.seq])
                }
            }
        }
    }

    func read(_ ids: [String]) throws -> Int {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT body FROM docs WHERE id = ?")
            var total = 0
            for id in ids {
                if let body = try Data.fetchOne(statement, arguments: [id]) { total += body.count }
            }
            return total
        }
    }
}
