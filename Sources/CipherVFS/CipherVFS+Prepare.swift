import CSQLite

extension CipherVFS {
    /// Sets up a connection to an encrypted database; call it on every connection, before anything else.
    ///
    /// It fixes what the page format relies on:
    /// - page size 4096 and 28 reserved bytes per page, where each page keeps its nonce and tag. Both take
    ///   effect only on a database that has no page yet (and are kept by `VACUUM` and `VACUUM INTO`), so
    ///   this must run before the first write, which for GRDB is `PRAGMA journal_mode = WAL`: GRDB runs
    ///   `prepareDatabase` first. On an existing database they are no-ops. Never change `page_size` later.
    /// - `temp_store = MEMORY`: temporary files have no database name, so the VFS cannot tell which key
    ///   they belong to and would write them in plaintext; in memory there is no file.
    /// - `mmap_size = 0`: belt and braces, since encrypted files already offer SQLite no memory map.
    ///
    /// A database written without this is refused by the VFS (`SQLITE_IOERR_WRITE`), not corrupted.
    ///
    /// ```swift
    /// config.prepareDatabase { db in try CipherVFS.prepare(connection: db.sqliteConnection!) }
    /// ```
    /// - Parameter connection: An open `sqlite3 *` (GRDB's `Database.sqliteConnection`).
    /// - Throws: `CloudantError` `.sqliteFailure`.
    package static func prepare(connection: OpaquePointer) throws {
        // Literal SQL with no values: nothing to bind.
        try execute("PRAGMA page_size = 4096", on: connection)
        var reserve = Int32(PageCodec.reservedByteCount)
        let rc = sqlite3_file_control(connection, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
        guard rc == SQLITE_OK else {
            throw cipherFailure(.sqliteFailure, sqliteCode: rc, detail: "could not reserve bytes for the page tag")
        }
        try execute("PRAGMA temp_store = MEMORY", on: connection)
        try execute("PRAGMA mmap_size = 0", on: connection)
    }

    static func execute(_ sql: String, on connection: OpaquePointer) throws {
        let rc = sqlite3_exec(connection, sql, nil, nil, nil)
        guard rc == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(connection))
            throw cipherFailure(.sqliteFailure, sqliteCode: sqlite3_extended_errcode(connection), detail: message)
        }
    }
}
