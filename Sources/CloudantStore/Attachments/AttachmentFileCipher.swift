internal import CloudantCore
internal import Crypto
internal import Foundation

/// How the attachment files of an encrypted store are kept unreadable without its key: the store's key
/// (``StoreOptions/encryptionKey``) gives, through HKDF-SHA256, one key for file contents and one for file
/// names.
///
/// - **Contents**: chunks of 64 KB sealed with AES-256-GCM, each on disk as a random 12-byte nonce, the
///   ciphertext and a 16-byte tag. The authenticated data is the chunk's index and whether it is the last,
///   so chunks cannot be reordered, dropped or the file cut at a chunk boundary without the read failing.
///   A file always ends with a final chunk (empty when the content fills the chunks before it exactly).
/// - **Names**: an HMAC of the digest instead of the digest itself, so the folder does not say which
///   known files (by their MD5) the store holds.
struct AttachmentFileCipher: Sendable {
    static let chunkSize = 64 * 1024
    static let overhead = 12 + 16
    private let contentKey: SymmetricKey
    private let nameKey: SymmetricKey

    init(_ key: DatabaseKey) {
        let master = key.withUnsafeBytes { SymmetricKey(data: $0) }
        contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, info: Data("otf-cloudant attachment contents v1".utf8), outputByteCount: 32)
        nameKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, info: Data("otf-cloudant attachment names v1".utf8), outputByteCount: 32)
    }

    /// The file name for `digest`.
    func fileName(for digest: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(digest.utf8), using: nameKey).prefix(16)
            .map { String(format: "%02x", $0) }.joined()
    }

    /// One sealed chunk: nonce, ciphertext, tag.
    func seal(_ plaintext: UnsafeRawBufferPointer, index: Int, isLast: Bool) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: contentKey, nonce: AES.GCM.Nonce(), authenticating: Self.aad(index, isLast))
        return Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
    }

    /// The plaintext of one sealed chunk.
    /// - Throws: `CloudantError` `.storeUnreadable` when it does not authenticate (a wrong key, a damaged or
    ///   tampered file).
    func open(_ sealed: [UInt8], index: Int, isLast: Bool) throws -> [UInt8] {
        do {
            guard sealed.count >= Self.overhead else { throw CryptoKitError.incorrectParameterSize }
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: sealed[0..<12]), ciphertext: sealed[12..<(sealed.count - 16)],
                tag: sealed[(sealed.count - 16)...])
            return Array(try AES.GCM.open(box, using: contentKey, authenticating: Self.aad(index, isLast)))
        } catch {
            throw CloudantError(
                .storeUnreadable, "An attachment file does not decrypt with the store's key: it is damaged or was changed.")
        }
    }

    /// The plaintext length of a file of `size` bytes.
    static func plaintextLength(ofFileSize size: Int) -> Int {
        let chunks = max(1, (size + chunkSize + overhead - 1) / (chunkSize + overhead))
        return max(0, size - chunks * overhead)
    }

    private static func aad(_ index: Int, _ isLast: Bool) -> Data {
        var bytes = Array("OTFA1".utf8)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(index) >> UInt64(shift))) }
        bytes.append(isLast ? 1 : 0)
        return Data(bytes)
    }
}
