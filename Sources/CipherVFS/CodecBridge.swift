import CCipherVFS
import Crypto

/// The three C function pointers the C VFS calls: key lookup, seal, open.
///
/// They are plain functions with no captured state (C cannot carry a Swift context), so the state they need
/// lives in ``KeyRegistry/shared``. They never throw into C: every failure becomes a non-zero return, which
/// the VFS reports to SQLite as an I/O error.
enum CodecBridge {
    static let codec = cipher_vfs_codec(
        lookup: { path, keyOut in
            guard let path, let keyOut else { return 0 }
            guard let key = KeyRegistry.shared.key(forDatabaseAt: String(cString: path)) else { return 0 }
            key.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(start: keyOut, count: CipherVFS.keyByteCount).copyMemory(from: bytes)
            }
            return 1
        },
        encrypt: { key, kind, index, page in
            CodecBridge.run(key: key, page: page) { try PageCodec.seal($1, key: $0, kind: kind, index: index) }
        },
        decrypt: { key, kind, index, page in
            CodecBridge.run(key: key, page: page) { try PageCodec.open($1, key: $0, kind: kind, index: index) }
        }
    )

    private static func run(
        key: UnsafePointer<UInt8>?, page: UnsafeMutablePointer<UInt8>?,
        _ body: (SymmetricKey, UnsafeMutableRawBufferPointer) throws -> Void
    ) -> Int32 {
        guard let key, let page else { return 1 }
        let symmetricKey = SymmetricKey(data: UnsafeRawBufferPointer(start: key, count: CipherVFS.keyByteCount))
        do {
            try body(symmetricKey, UnsafeMutableRawBufferPointer(start: page, count: PageCodec.pageSize))
            return 0
        } catch {
            return 1
        }
    }
}
