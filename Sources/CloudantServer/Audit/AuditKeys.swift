internal import CloudantCore
public import CloudantStore
internal import Crypto
internal import Foundation

/// The keys of a server's audit trail: the secret that signs its head and its anchor (so that a trail cut
/// short, or an anchor written by hand, is told apart from the server's own), and, for a server that encrypts
/// its stores, the key its lines are encrypted with.
///
/// The server keeps both: the signing secret is its identity's (`.couch_server.json` in the data folder), the
/// encryption key is ``ServerConfiguration/encryptionKey``. `cloudant audit` reads them the same way.
///
/// ```swift
/// let keys = try AuditKeys.ofServer(dataFolder: "clinic-data", encryptionKey: key)
/// let report = try AuditTrail.verify(folder: "clinic-data/_audit", keys: keys)
/// ```
public struct AuditKeys: Sendable {
    /// Signs the head and the anchor (HMAC-SHA256).
    let signing: SymmetricKey
    /// Encrypts each line (AES-256-GCM), when the server encrypts its stores.
    let encryption: SymmetricKey?

    /// Keys derived from a server's secret and, for an encrypted server, its store key.
    public init(secret: [UInt8], encryptionKey: DatabaseKey? = nil) {
        signing = Self.derive(from: secret, purpose: "otf-audit-head-v1")
        encryption = encryptionKey.map { key in key.withUnsafeBytes { Self.derive(from: Array($0), purpose: "otf-audit-lines-v1") } }
    }

    /// The keys of the server whose data folder is `dataFolder`: its identity's secret, and `encryptionKey` (the
    /// key the server was started with, for an encrypted server).
    /// - Throws: `CloudantError` `.notFound` when the folder holds no server identity (no server
    ///   has run on it).
    public static func ofServer(dataFolder: String, encryptionKey: DatabaseKey? = nil) throws -> AuditKeys {
        let url = URL(fileURLWithPath: dataFolder, isDirectory: true).appendingPathComponent(ServerIdentity.fileName)
        guard FileManager.default.fileExists(atPath: url.path),
            let identity = try? ServerIdentity.load(folder: dataFolder, uuid: nil)
        else {
            throw CloudantError(
                .notFound, "No server identity in '\(dataFolder)': the audit keys are those of the server that kept the trail.")
        }
        return AuditKeys(secret: identity.secret, encryptionKey: encryptionKey)
    }

    private static func derive(from material: [UInt8], purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material), info: Array(purpose.utf8), outputByteCount: 32)
    }

    /// The hex MAC of `bytes`.
    func signature(of bytes: [UInt8]) -> String {
        Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: bytes, using: signing)))
    }

    /// Whether `mac` is the MAC of `bytes`, compared in constant time.
    func isSignature(_ mac: String, of bytes: [UInt8]) -> Bool {
        ConstantTime.equal(Array(signature(of: bytes).utf8), Array(mac.lowercased().utf8))
    }
}

/// How a line is kept in a segment: as its JSON text, or, on an encrypted server, sealed with AES-GCM and
/// written as base64 (which never starts with `{`, so a trail encrypted from some day on reads whole).
struct AuditLineCodec: Sendable {
    let key: SymmetricKey?

    static let plain = AuditLineCodec(key: nil)

    /// The stored form of a line's bytes (without the newline).
    func encode(_ line: [UInt8]) -> [UInt8] {
        guard let key, let sealed = try? AES.GCM.seal(line, using: key).combined else { return line }
        return Array(sealed.base64EncodedString().utf8)
    }

    /// Why a stored line cannot be read.
    enum Failure: Error {
        /// The line is encrypted and no key (or another key) was given.
        case encrypted
    }

    /// The line's JSON bytes.
    /// - Throws: ``Failure/encrypted`` for an encrypted line without its key.
    func decode(_ stored: ArraySlice<UInt8>) throws(Failure) -> ArraySlice<UInt8> {
        guard let first = stored.first, first != UInt8(ascii: "{") else { return stored }
        guard let key, let data = Data(base64Encoded: Data(stored)), let box = try? AES.GCM.SealedBox(combined: data),
            let opened = try? AES.GCM.open(box, using: key)
        else { throw .encrypted }
        return ArraySlice(Array(opened))
    }
}
