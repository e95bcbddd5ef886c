internal import CloudantCore
internal import Crypto
internal import CryptoExtras

/// A 256-bit key that encrypts one store at rest (``StoreOptions/encryptionKey``): its SQLite file, page by
/// page with AES-256-GCM, and its attachment files.
///
/// Keep the key itself outside the database (the platform keychain, or derive it from a passphrase with a
/// per-database random salt). The bytes live in swift-crypto's `SymmetricKey`, which wipes them when the
/// last copy goes away.
///
/// ```swift
/// let salt = DatabaseKey.randomSalt()          // store the salt next to the database; it is not secret
/// let key = try DatabaseKey(passphrase: "correct horse battery staple", salt: salt)
/// let store = try DocumentStore.open(name: "health", in: folder, options: StoreOptions(encryptionKey: key))
/// ```
public struct DatabaseKey: Sendable {
    /// The number of bytes in a key.
    public static let byteCount = 32

    /// PBKDF2-HMAC-SHA256 rounds used by ``init(passphrase:salt:rounds:)`` unless told otherwise: OWASP's
    /// 2023 recommendation for that hash. swift-crypto refuses fewer than 210,000.
    public static let defaultPassphraseRounds = 600_000

    /// The smallest salt ``init(passphrase:salt:rounds:)`` accepts, in bytes (NIST SP 800-132 asks for 128 bits).
    public static let minimumSaltByteCount = 16

    let symmetricKey: SymmetricKey

    /// Creates a key from exactly 32 raw bytes, for example bytes kept in the keychain.
    ///
    /// - Throws: `CloudantError` `.invalidEncryptionKey` when `rawBytes` is not 32 bytes.
    public init(rawBytes: [UInt8]) throws {
        guard rawBytes.count == Self.byteCount else {
            throw CloudantError(.invalidEncryptionKey, "A database key is \(Self.byteCount) bytes, got \(rawBytes.count).")
        }
        symmetricKey = SymmetricKey(data: rawBytes)
    }

    /// Derives a key from a passphrase with PBKDF2-HMAC-SHA256.
    ///
    /// The same passphrase and salt always give the same key, so store the salt (it is not secret) and use a
    /// fresh ``randomSalt(byteCount:)`` per database: that way equal passphrases do not give equal keys.
    ///
    /// - Parameters:
    ///   - passphrase: The user's passphrase, as UTF-8.
    ///   - salt: At least ``minimumSaltByteCount`` random bytes.
    ///   - rounds: PBKDF2 iterations; at least 210,000. Derivation takes time in proportion, on purpose.
    /// - Throws: `CloudantError` `.invalidEncryptionKey` when the salt is too short or
    ///   the rounds too few.
    public init(passphrase: String, salt: [UInt8], rounds: Int = DatabaseKey.defaultPassphraseRounds) throws {
        guard salt.count >= Self.minimumSaltByteCount else {
            throw CloudantError(.invalidEncryptionKey, "The salt must be at least \(Self.minimumSaltByteCount) bytes.")
        }
        do {
            symmetricKey = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(passphrase.utf8), salt: salt, using: .sha256,
                outputByteCount: Self.byteCount, rounds: rounds)
        } catch {
            throw CloudantError(.invalidEncryptionKey, "PBKDF2 refused \(rounds) rounds; use at least 210,000.")
        }
    }

    /// Wraps a key swift-crypto already made; callers pass 256-bit keys only.
    init(symmetricKey: SymmetricKey) {
        self.symmetricKey = symmetricKey
    }

    /// A new key from the system's secure random generator.
    public static func random() -> DatabaseKey {
        DatabaseKey(symmetricKey: SymmetricKey(size: .bits256))
    }

    /// Fresh random bytes to use as the salt of ``init(passphrase:salt:rounds:)``.
    public static func randomSalt(byteCount: Int = 16) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Calls `body` with the raw key bytes, for storing the key in the keychain. Do not keep the pointer.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try symmetricKey.withUnsafeBytes(body)
    }
}
