// cipher-crash-writer: the victim of CipherVFS's crash-safety test.
//
// Usage: cipher-crash-writer <database path> <64 hex digits of key>
//
// Commits transactions of 10 rows to an encrypted WAL database, as fast as it can, and after each COMMIT
// returns prints "committed <n>" (flushed), so the test knows transactions 0...n are durable when it kills
// this process with SIGKILL. Rows are ~600 bytes so the log outgrows the auto-checkpoint threshold and a kill
// can land mid-checkpoint too. It stops by itself after 20,000 transactions.
import Crypto
import CSQLite
import CipherVFS
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[2].count == 64 else { fail("usage: cipher-crash-writer <db> <hex key>") }
let hex = Array(arguments[2].utf8)
let keyBytes: [UInt8] = stride(from: 0, to: 64, by: 2).map { i in
    UInt8(String(decoding: hex[i..<i + 2], as: UTF8.self), radix: 16) ?? 0
}

do {
    let key = SymmetricKey(data: keyBytes)
    try CipherVFS.register(key, forDatabaseAt: arguments[1])
    var db: OpaquePointer?
    guard sqlite3_open_v2(arguments[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
        fail("cannot open")
    }
    try CipherVFS.prepare(connection: db)
    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fail(String(cString: sqlite3_errmsg(db))) }
    }
    exec("PRAGMA journal_mode = WAL")
    exec("PRAGMA synchronous = NORMAL")
    exec("CREATE TABLE IF NOT EXISTS rows (txn INTEGER NOT NULL, n INTEGER NOT NULL, body TEXT NOT NULL)")
    var insert: OpaquePointer?
    guard sqlite3_prepare_v2(db, "INSERT INTO rows (txn, n, body) VALUES (?, ?, ?)", -1, &insert, nil) == SQLITE_OK else {
        fail("cannot prepare")
    }
    let body = "PLAINTEXT-MARKER-crash-" + String(repeating: "y", count: 577)
    for txn in 0..<20_000 {
        exec("BEGIN IMMEDIATE")
        for n in 0..<10 {
            sqlite3_bind_int64(insert, 1, Int64(txn))
            sqlite3_bind_int64(insert, 2, Int64(n))
            sqlite3_bind_text(insert, 3, body, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            guard sqlite3_step(insert) == SQLITE_DONE else { fail(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(insert)
        }
        exec("COMMIT")
        FileHandle.standardOutput.write(Data("committed \(txn)\n".utf8))
    }
} catch {
    fail("\(error)")
}
