import CSQLite

/// A baseline's own connection to the system SQLite through its C API, opened as the store opens its files
/// (WAL, `synchronous=NORMAL`) with no Swift layer in between. Each baseline adds its tables and queries.
class SQLiteBaseline {
    let db: OpaquePointer?

    init(path: String) throws {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            defer { sqlite3_close_v2(connection) }
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(connection)))
        }
        db = connection
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
    }

    deinit { sqlite3_close_v2(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
    }

    /// The file's size once the log is copied into it and truncated: pages × page size.
    func checkpointedSize() throws -> Int64 {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
        guard let statement = try prepare("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size") else { return 0 }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return 0 }
        return sqlite3_column_int64(statement, 0)
    }

    func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    /// Steps a statement that returns no rows (an insert), throwing SQLite's message when it fails, and resets it
    /// for its next bindings.
    func run(_ statement: OpaquePointer?) throws {
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }

    /// Runs the insert `sql` once per row with one prepared statement, `bind` setting each row's parameters, in one
    /// transaction (committed and begun again every `batchSize` rows).
    func insert<Row>(_ sql: String, _ rows: some Sequence<Row>, batchSize: Int = .max, bind: (OpaquePointer?, Row) throws -> Void) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try execute("BEGIN")
        for (index, row) in rows.enumerated() {
            if index > 0 && index % batchSize == 0 { try execute("COMMIT; BEGIN") }
            try bind(statement, row)
            try run(statement)
        }
        try execute("COMMIT")
    }
}
