import CCipherVFS
import CSQLite
package import Crypto

/// Encryption at rest for SQLite databases, as a VFS that every connection in the process goes through.
///
/// Register a key for a database path before opening it; the VFS then encrypts that database, its `-wal` and
/// its `-journal` page by page with AES-256-GCM. Databases without a registered key are untouched. See
/// <doc:PageFormat> for the on-disk format and the rules an encrypted store must follow.
///
/// ```swift
/// let key = SymmetricKey(size: .bits256)               // the store's DatabaseKey holds one
/// try CipherVFS.verify(key, databaseAt: path)          // wrong key or plaintext file: throws, opens nothing
/// try CipherVFS.register(key, forDatabaseAt: path)     // installs the VFS on first use
/// var config = Configuration()
/// config.prepareDatabase { db in try CipherVFS.prepare(connection: db.sqliteConnection!) }
/// let pool = try DatabasePool(path: path, configuration: config)
/// ```
package enum CipherVFS {
    /// The name the VFS registers under. It is also the process's default VFS after ``install()``.
    package static let vfsName = CIPHER_VFS_NAME

    /// The length of a key: AES-256.
    package static let keyByteCount = 32

    /// Runs once per process (Swift initialises globals exactly once, thread-safely).
    private static let installation: Int32 = cipher_vfs_install(CodecBridge.codec)

    /// Registers the cipher VFS as SQLite's default VFS, wrapping the previous default.
    ///
    /// Idempotent. ``register(_:forDatabaseAt:)`` calls it, so apps need not; call it early if other code
    /// might register a default VFS of its own later (the last one registered as default wins).
    ///
    /// - Throws: `CloudantError` `.encryptionUnavailable`.
    package static func install() throws {
        let rc = installation
        guard rc == SQLITE_OK else {
            throw cipherFailure(.encryptionUnavailable, sqliteCode: rc, detail: "sqlite3_vfs_register failed")
        }
    }

    /// Encrypts the database at `path` with `key` from its next open on.
    ///
    /// Connections already open keep the key they opened with. The path may be relative or contain
    /// symlinks; it is canonicalised the way SQLite names files. Check the key first with
    /// ``verify(_:databaseAt:)``: registering a key for a plaintext database makes it unreadable.
    ///
    /// - Throws: `CloudantError` `.encryptionUnavailable`.
    package static func register(_ key: SymmetricKey, forDatabaseAt path: String) throws {
        // Installing first closes the gap where a key is registered but files still open unencrypted.
        try install()
        KeyRegistry.shared.register(key, forDatabaseAt: path)
    }

    /// The key registered for the database at `path`, if any: what files kept beside an encrypted database
    /// (its attachments) are encrypted with.
    package static func registeredKey(forDatabaseAt path: String) -> SymmetricKey? {
        KeyRegistry.shared.key(forDatabaseAt: KeyRegistry.canonicalPath(path))
    }

    /// Forgets the key of the database at `path`. Open connections are unaffected, and a `-wal` or
    /// `-journal` opened later by such a connection still uses its database's key.
    package static func unregister(path: String) {
        KeyRegistry.shared.unregister(path: path)
    }
}
