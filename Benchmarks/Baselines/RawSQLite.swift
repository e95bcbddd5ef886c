import CSQLite
import Foundation

/// The baseline every store benchmark is divided by: the system SQLite through its C API, with prepared
/// statements, WAL and `synchronous=NORMAL` (the settings the store uses), no Swift layer in between.
final class RawSQLite: SQLiteBaseline {

    /// Opens (creating) the table `docs (id, rev, body, seq)`; with `sequenceIndex`, also the unique index on
    /// `seq` a changes feed needs, so the baseline writes the same B-trees the store must (its id and seq).
    init(path: String, sequenceIndex: Bool = false) throws {
        try super.init(path: path)
        try execute("CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY, rev TEXT NOT NULL, body BLOB NOT NULL, seq INTEGER NOT NULL)")
        if sequenceIndex { try execute("CREATE UNIQUE INDEX IF NOT EXISTS docs_by_seq ON docs(seq)") }
    }

    /// Inserts every batch in its own transaction with one prepared statement.
    func insert(_ batches: [ArraySlice<Workload.Row>]) throws {
        let statement = try prepare("INSERT INTO docs (id, rev, body, seq) VALUES (?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        for batch in batches {
            try execute("BEGIN IMMEDIATE")
            for row in batch {
                sqlite3_bind_text(statement, 1, row.id, -1, SQLITE_TRANSIENT)
                sqlite3_bind_text(statement, 2, row.rev, -1, SQLITE_TRANSIENT)
                _ = row.body.withUnsafeBytes { sqlite3_bind_blob(statement, 3, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
                sqlite3_bind_int64(statement, 4, row.seq)
                try run(statement)
            }
            try execute("COMMIT")
        }
    }

    /// Reads each id's body with one prepared statement; returns the bytes read so nothing is optimised away.
    func read(_ ids: [String]) throws -> Int {
        let statement = try prepare("SELECT body FROM docs WHERE id = ?")
        defer { sqlite3_finalize(statement) }
        var total = 0
        for id in ids {
            sqlite3_bind_text(statement, 1, id, -1, SQLITE_TRANSIENT)
            if sqlite3_step(statement) == SQLITE_ROW {
                let count = Int(sqlite3_column_bytes(statement, 0))
                if let pointer = sqlite3_column_blob(statement, 0) {
                    total += Array(UnsafeRawBufferPointer(start: pointer, count: count)).count
                }
            }
            sqlite3_reset(statement)
        }
        return total
    }

}

/// SQLite's "copy this buffer" destructor, which Swift cannot import as a macro.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

enum BenchmarkError: Error {
    case sqlite(String)
    case unexpected(String)
}
