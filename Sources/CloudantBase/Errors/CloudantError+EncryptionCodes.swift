/// The codes of encryption at rest, each with its category: what a `DatabaseKey` and the store's encryption
/// layer throw. `context.file` names the database file, and the message says what to do (with SQLite's extended
/// result code or the C `errno` when one caused it). Messages never contain key material or page contents.
extension CloudantError.Code {
    /// A key of the wrong length, or a passphrase derivation with too short a salt or too few rounds.
    public static let invalidEncryptionKey = Self("invalidEncryptionKey", category: .invalidInput)
    /// The database file is encrypted with another key than the one given. Nothing was read or changed.
    public static let wrongEncryptionKey = Self("wrongEncryptionKey", category: .unauthorized)
    /// A key was given for a database file that is not encrypted: opening it so would make it unreadable.
    /// Open it without a key, or encrypt it first.
    public static let storeNotEncrypted = Self("storeNotEncrypted", category: .preconditionFailed)
    /// The file is neither a plaintext SQLite database nor an encrypted one (for example, truncated), or it
    /// cannot be re-encrypted as it is (an empty database, pages other than 4096 bytes).
    public static let notADatabase = Self("notADatabase", category: .invalidInput)
    /// The encryption layer could not be registered with SQLite.
    public static let encryptionUnavailable = Self("encryptionUnavailable", category: .internal)
    /// SQLite refused an operation of the encryption layer (its extended result code is in the message).
    public static let sqliteFailure = Self("sqliteFailure", category: .internal)
    /// A file system call of the encryption layer failed (its `errno` is in the message).
    public static let fileSystemFailure = Self("fileSystemFailure", category: .internal)
}
