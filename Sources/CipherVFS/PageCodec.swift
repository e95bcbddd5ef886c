import CCipherVFS
import Crypto
import Foundation

/// Seals and opens one page with AES-256-GCM: the single place that knows the cipher and the byte layout.
///
/// A page is `pageSize` bytes. Bytes `[0, sealedByteCount)` are encrypted; the last `reservedByteCount`
/// bytes (SQLite's reserved bytes, which it never reads or writes) hold the 12-byte nonce, then the 16-byte
/// tag. The authenticated data binds the page to its place, so a page copied elsewhere fails to open:
/// `"OTFCV1"`, the file kind (`D`, `W`, `J`), and the index (page number, or byte offset in a log), big-endian.
enum PageCodec {
    static let pageSize = Int(CIPHER_VFS_PAGE_SIZE)
    static let reservedByteCount = Int(CIPHER_VFS_RESERVED_BYTES)
    static let sealedByteCount = pageSize - reservedByteCount
    static let nonceByteCount = 12
    static let tagByteCount = 16

    /// Which file a page lives in; the raw values are the C side's `CIPHER_VFS_KIND_*`.
    enum Kind: UInt8 {
        case database = 0x44 // "D"
        case wal = 0x57 // "W"
        case journal = 0x4A // "J"
    }

    /// Why a page could not be opened or sealed. Internal: the VFS turns it into an SQLite I/O error.
    struct Failure: Error {}

    /// Encrypts `page` in place. `page` must be exactly `pageSize` bytes.
    static func seal(_ page: UnsafeMutableRawBufferPointer, key: SymmetricKey, kind: UInt8, index: UInt64) throws {
        guard page.count == pageSize else { throw Failure() }
        let body = UnsafeMutableRawBufferPointer(rebasing: page[0..<sealedByteCount])
        let box = try withAuthenticatedData(kind: kind, index: index) { aad in
            try AES.GCM.seal(UnsafeRawBufferPointer(body), using: key, nonce: AES.GCM.Nonce(), authenticating: aad)
        }
        guard box.ciphertext.count == sealedByteCount, box.tag.count == tagByteCount else { throw Failure() }
        box.ciphertext.copyBytes(to: body)
        let nonceStart = sealedByteCount
        let tagStart = nonceStart + nonceByteCount
        box.nonce.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: page[nonceStart..<tagStart]).copyMemory(from: $0) }
        box.tag.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: page[tagStart..<pageSize]))
    }

    /// Decrypts `page` in place and zeroes its reserved bytes, or throws without touching it.
    ///
    /// The reserved bytes come back as zeros because SQLite checksums WAL frames over whole pages, reserved
    /// bytes included, as they were in its memory when written: zeros, since it only ever saw zeros there.
    static func open(_ page: UnsafeMutableRawBufferPointer, key: SymmetricKey, kind: UInt8, index: UInt64) throws {
        guard page.count == pageSize else { throw Failure() }
        let nonceStart = sealedByteCount
        let tagStart = nonceStart + nonceByteCount
        let body = UnsafeMutableRawBufferPointer(rebasing: page[0..<sealedByteCount])
        let plaintext = try withAuthenticatedData(kind: kind, index: index) { aad in
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: page[nonceStart..<tagStart])),
                ciphertext: UnsafeRawBufferPointer(body),
                tag: UnsafeRawBufferPointer(rebasing: page[tagStart..<pageSize]))
            return try AES.GCM.open(box, using: key, authenticating: aad)
        }
        guard plaintext.count == sealedByteCount else { throw Failure() }
        plaintext.copyBytes(to: body)
        UnsafeMutableRawBufferPointer(rebasing: page[sealedByteCount..<pageSize]).initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Builds the 15 bytes of authenticated data on the stack: this runs for every page read and written.
    private static func withAuthenticatedData<Result>(
        kind: UInt8, index: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(byteCount: 15, alignment: 1) { aad in
            for (offset, byte) in "OTFCV1".utf8.enumerated() { aad[offset] = byte }
            aad[6] = kind
            for shift in 0..<8 { aad[7 + shift] = UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64(shift))) }
            return try body(UnsafeRawBufferPointer(aad))
        }
    }
}
