package import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CipherVFS {
    /// Re-encrypts the database at `path` under `newKey`, atomically: afterwards only `newKey` opens it.
    ///
    /// Close every connection to the database first (in this and other processes). The recipe:
    /// 1. open with `oldKey`, checkpoint the WAL into the database and truncate it to zero bytes;
    /// 2. `VACUUM INTO` `<path>.rekey`, registered with `newKey` (SQLite rewrites every page, so every
    ///    page is sealed with the new key; VACUUM keeps the page size and reserved bytes);
    /// 3. fsync the copy, rename it over `path`, fsync the directory;
    /// 4. delete the old `-wal` (empty after step 1) and `-shm`.
    ///
    /// A crash before the rename leaves the original, under `oldKey`, untouched (a stale `.rekey` file is
    /// removed by the next attempt); after it, the database is complete under `newKey`, and the `-wal`
    /// that may remain is empty, so SQLite ignores it.
    ///
    /// On return `newKey` is registered for `path`.
    ///
    /// - Throws: `CloudantError` `.wrongEncryptionKey` or
    ///   `.storeNotEncrypted` when `oldKey` does not open the database (nothing is changed),
    ///   `.sqliteFailure` (for example `SQLITE_BUSY` while a connection is still open) or
    ///   `.fileSystemFailure`.
    package static func rekey(databaseAt path: String, from oldKey: SymmetricKey, to newKey: SymmetricKey) throws {
        let copy = try writeRekeyedCopy(databaseAt: path, from: oldKey, to: newKey)
        try replace(path, with: copy, key: newKey)
    }

    /// Steps 1 and 2 of ``rekey(databaseAt:from:to:)``: returns the path of the complete copy.
    static func writeRekeyedCopy(databaseAt path: String, from oldKey: SymmetricKey, to newKey: SymmetricKey) throws -> String {
        guard try check(oldKey, databaseAt: path) == .matches else {
            try verify(oldKey, databaseAt: path) // throws the precise reason
            throw cipherFailure(.notADatabase, path: path, detail: "nothing to re-encrypt: the database is empty")
        }
        try register(oldKey, forDatabaseAt: path)
        return try vacuumCopy(of: path, sealedWith: newKey, before: "rekeying")
    }

    /// Encrypts the plaintext database at `path` with `key`, atomically, as ``rekey(databaseAt:from:to:)``
    /// re-encrypts: the copy written with `VACUUM INTO` gets the 28 reserved bytes per page the format needs
    /// (asked of the source connection, which `VACUUM INTO` honours) and is sealed page by page on the way.
    ///
    /// - Throws: `CloudantError` `.notADatabase` when the file is already encrypted
    ///   or its pages are not 4096 bytes, `.sqliteFailure` while a connection is open.
    package static func encrypt(databaseAt path: String, with key: SymmetricKey) throws {
        try install()
        unregister(path: path)
        // `RawConnection` asked for the reserved bytes on this connection; `VACUUM INTO` gives the copy them.
        let copy = try vacuumCopy(of: path, sealedWith: key, before: "encrypting") { connection in
            guard try connection.run("PRAGMA page_size").first == Int64(PageCodec.pageSize) else {
                throw cipherFailure(.notADatabase, path: path, detail: "only databases with 4096-byte pages can be encrypted")
            }
        }
        try replace(path, with: copy, key: key)
    }

    /// Decrypts the database at `path` (encrypted with `key`) into a plaintext database, atomically.
    /// - Throws: as ``rekey(databaseAt:from:to:)``.
    package static func decrypt(databaseAt path: String, from key: SymmetricKey) throws {
        try verify(key, databaseAt: path)
        try register(key, forDatabaseAt: path)
        let copy = try vacuumCopy(of: path, sealedWith: nil, before: "decrypting")
        try replace(path, with: copy, key: nil)
    }

    /// Steps 3 and 4: make the copy durable, then atomically put it in place of the original.
    static func replace(_ path: String, with copy: String, key newKey: SymmetricKey?) throws {
        try fsyncFile(copy)
        // From here on, any open of `path` must use the new key (or none).
        if let newKey { try register(newKey, forDatabaseAt: path) } else { unregister(path: path) }
        guard rename(copy, path) == 0 else {
            throw cipherFailure(.fileSystemFailure, path: path, errno: errno, detail: "cannot rename the re-encrypted copy into place")
        }
        try fsyncFile((path as NSString).deletingLastPathComponent)
        unregister(path: copy)
        for stale in [path + "-wal", path + "-shm"] { try removeIfPresent(stale) }
    }

    /// Step 2 of every recipe: copies the database at `path` (its key already registered) into `<path>.rekey`
    /// with `VACUUM INTO`, sealed with `copyKey` (plaintext for `nil`), after `check` accepts the connection and
    /// the WAL is folded in. A copy that fails is unregistered and removed, so no partial copy stays on disk.
    /// Returns the copy's path.
    private static func vacuumCopy(
        of path: String, sealedWith copyKey: SymmetricKey?, before action: String,
        checking check: (RawConnection) throws -> Void = { _ in }
    ) throws -> String {
        let copy = path + ".rekey"
        try removeLeftovers(of: copy)
        if let copyKey { try register(copyKey, forDatabaseAt: copy) } else { unregister(path: copy) }
        do {
            let connection = try RawConnection(path: path)
            try check(connection)
            try truncateLog(of: connection, path: path, before: action)
            try connection.run("VACUUM INTO ?", binding: copy)
        } catch {
            unregister(path: copy)
            try? removeIfPresent(copy)
            throw error
        }
        return copy
    }

    /// Removes what an interrupted earlier attempt left at `copy`.
    private static func removeLeftovers(of copy: String) throws {
        for leftover in [copy, copy + "-wal", copy + "-shm", copy + "-journal"] { try removeIfPresent(leftover) }
    }

    /// Folds the WAL into the database and empties it, so `VACUUM INTO` copies everything and the old WAL
    /// can be deleted after the rename; `SQLITE_BUSY` while another connection is open.
    private static func truncateLog(of connection: RawConnection, path: String, before action: String) throws {
        let checkpoint = try connection.run("PRAGMA wal_checkpoint(TRUNCATE)")
        if checkpoint.first == 1 {
            throw cipherFailure(.sqliteFailure, path: path, sqliteCode: 5 /* SQLITE_BUSY */,
                                 detail: "another connection is open; close every connection before \(action)")
        }
    }

    private static func fsyncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw cipherFailure(.fileSystemFailure, path: path, errno: errno, detail: "cannot open to fsync") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw cipherFailure(.fileSystemFailure, path: path, errno: errno, detail: "fsync failed") }
    }

    private static func removeIfPresent(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw cipherFailure(.fileSystemFailure, path: path, errno: errno, detail: "cannot remove a stale file")
        }
    }
}
