public import CloudantCore

/// The store's error codes, each with its category.
extension CloudantError.Code {
    /// The store file was written by a newer version of this package (it has schema migrations this code
    /// does not know). It is refused, never opened: an older version writing it could corrupt what the
    /// newer one relies on.
    public static let storeFromNewerVersion = Self("storeFromNewerVersion", category: .unsupported)

    /// The store file is encrypted with another key than the one given (``StoreOptions/encryptionKey``).
    /// Nothing was read or changed.
    public static let wrongEncryptionKey = Self("wrongEncryptionKey", category: .unauthorized)
    /// The store file is encrypted and no key was given. Open it with its key.
    public static let encryptionKeyRequired = Self("encryptionKeyRequired", category: .unauthorized)
    /// A key was given for a store file that is not encrypted: opening it so would make it unreadable.
    /// Open it without a key, or encrypt it first with ``DocumentStore/changeEncryptionKey(ofStoreAt:from:to:)``.
    public static let storeNotEncrypted = Self("storeNotEncrypted", category: .preconditionFailed)

    /// A stored value could not be decoded: a compressed document body that is damaged or names a
    /// dictionary the file does not hold. The file was changed outside the store (or damaged on disk);
    /// nothing was written.
    public static let storeUnreadable = Self("storeUnreadable", category: .internal)
}
