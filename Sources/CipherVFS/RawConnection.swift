import CSQLite

/// A bare SQLite connection for the few things CipherVFS does itself (key rotation); the store uses GRDB.
final class RawConnection {
    let handle: OpaquePointer
    let path: String

    /// Opens `path` read-write through the default VFS (ours) and prepares it for encryption.
    init(path: String) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw cipherFailure(.sqliteFailure, path: path, sqliteCode: rc, detail: "cannot open the database")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        try CipherVFS.prepare(connection: db)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one statement, binding `text` (if any) to its single parameter, and returns the first row's
    /// integer columns.
    @discardableResult
    func run(_ sql: String, binding text: String? = nil) throws -> [Int64] {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        defer { sqlite3_finalize(statement) }
        if let text {
            // SQLITE_TRANSIENT: SQLite copies the string, which Swift frees after this call.
            try check(sqlite3_bind_text(statement, 1, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)))
        }
        var row: [Int64] = []
        var rc = sqlite3_step(statement)
        if rc == SQLITE_ROW {
            row = (0..<sqlite3_column_count(statement)).map { sqlite3_column_int64(statement, $0) }
            while rc == SQLITE_ROW { rc = sqlite3_step(statement) }
        }
        try check(rc)
        return row
    }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK || rc == SQLITE_DONE else {
            throw cipherFailure(.sqliteFailure, path: path, sqliteCode: sqlite3_extended_errcode(handle),
                                 detail: String(cString: sqlite3_errmsg(handle)))
        }
    }
}
