import CSQLite
import Foundation

/// The other candidate: the thinnest Swift wrapper over the C API we would write ourselves (a connection,
/// a statement with typed binds, a transaction helper). It has no pool, no migrations and no statement
/// cache; the benchmark tells what GRDB costs over it.
final class ThinWrapperCandidate {
    final class Statement {
        let handle: OpaquePointer?
        init(_ handle: OpaquePointer?) { self.handle = handle }
        deinit { sqlite3_finalize(handle) }

        func bind(_ value: String, at index: Int32) { sqlite3_bind_text(handle, index, value, -1, SQLITE_TRANSIENT) }
        func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
        func bind(_ value: [UInt8], at index: Int32) {
            _ = value.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
        }
        func step() -> Int32 { sqlite3_step(handle) }
        func reset() { sqlite3_reset(handle) }
        func blob(at column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }

    private var db: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite("open")
        }
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        try execute("CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY, rev TEXT NOT NULL, body BLOB NOT NULL, seq INTEGER NOT NULL)")
    }

    deinit { sqlite3_close_v2(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchmarkError.sqlite(sql) }
    }

    func prepare(_ sql: String) throws -> Statement {
        var handle: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &handle, nil) == SQLITE_OK else { throw BenchmarkError.sqlite(sql) }
        return Statement(handle)
    }

    func transaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    func insert(_ batches: [ArraySlice<Workload.Row>]) throws {
        let statement = try prepare("INSERT INTO docs (id, rev, body, seq) VALUES (?, ?, ?, ?)")
        for batch in batches {
            try transaction {
                for row in batch {
                    statement.bind(row.id, at: 1)
                    statement.bind(row.rev, at: 2)
                    statement.bind(row.body, at: 3)
                    statement.bind(row.seq, at: 4)
                    guard statement.step() == SQLITE_DONE else { throw BenchmarkError.sqlite("insert") }
                    statement.reset()
                }
            }
        }
    }

    func read(_ ids: [String]) throws -> Int {
        let statement = try prepare("SELECT body FROM docs WHERE id = ?")
        var total = 0
        for id in ids {
            statement.bind(id, at: 1)
            if statement.step() == SQLITE_ROW { total += statement.blob(at: 0).count }
            statement.reset()
        }
        return total
    }
}
