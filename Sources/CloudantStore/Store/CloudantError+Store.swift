public import CloudantCore

/// The store's error codes, each with its category.
extension CloudantError.Code {
    /// The store file was written by a newer version of this package (it has schema migrations this code
    /// does not know). It is refused, never opened: an older version writing it could corrupt what the
    /// newer one relies on.
    public static let storeFromNewerVersion = Self("storeFromNewerVersion", category: .unsupported)

    /// The store file is encrypted and no key was given. Open it with its key. (The encryption layer,
    /// CipherVFS, declares the codes of a wrong key, `wrongEncryptionKey`, and of a key given for a file
    /// that is not encrypted, `storeNotEncrypted`.)
    public static let encryptionKeyRequired = Self("encryptionKeyRequired", category: .unauthorized)

    // A stored value that cannot be decoded (a compressed body that is damaged, or names a dictionary the
    // file does not hold) is `storeUnreadable`, declared with the core's codes.
}
