internal import CZstd

/// A zstd dictionary trained from one entity kind's documents, digested once for compression and for
/// decompression (zstd shares digested dictionaries between threads read-only).
///
/// Its id is its row in `body_dictionaries` and is written into the dictionary's header, so every frame
/// compressed with it names it (``Zstd/dictionaryID(ofFrame:)``): a body is readable with nothing but the
/// store's own tables.
final class BodyDictionary: @unchecked Sendable {
    let id: UInt32
    /// The kind whose writes it compresses ("" for documents without a kind).
    let kind: String
    let bytes: [UInt8]
    let compression: OpaquePointer
    let decompression: OpaquePointer

    /// - Returns: nil when `bytes` is not a zstd dictionary with id `id`.
    init?(id: UInt32, kind: String, bytes: [UInt8], level: Int32) {
        guard bytes.count > 8, Array(bytes.prefix(4)) == Zstd.dictionaryMagic, Self.headerID(of: bytes) == id else { return nil }
        let digested = bytes.withUnsafeBytes { buffer -> (OpaquePointer?, OpaquePointer?) in
            (ZSTD_createCDict(buffer.baseAddress, buffer.count, level), ZSTD_createDDict(buffer.baseAddress, buffer.count))
        }
        guard let compression = digested.0, let decompression = digested.1 else {
            if let made = digested.0 { ZSTD_freeCDict(made) }
            if let made = digested.1 { ZSTD_freeDDict(made) }
            return nil
        }
        self.id = id
        self.kind = kind
        self.bytes = bytes
        self.compression = compression
        self.decompression = decompression
    }

    deinit {
        ZSTD_freeCDict(compression)
        ZSTD_freeDDict(decompression)
    }

    /// The id a dictionary's header names (bytes 4–7, little-endian).
    static func headerID(of bytes: [UInt8]) -> UInt32 {
        guard bytes.count >= 8 else { return 0 }
        return (4..<8).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1]) }
    }

    /// `bytes` with `id` written into the header in place of the one training chose (a hash of the content).
    static func renumbered(_ bytes: [UInt8], id: UInt32) -> [UInt8] {
        var bytes = bytes
        for offset in 0..<4 { bytes[4 + offset] = UInt8(truncatingIfNeeded: id >> (8 * offset)) }
        return bytes
    }
}
