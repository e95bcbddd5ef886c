internal import CompressNIO
internal import NIOCore

/// gzip members (RFC 1952) with zlib, through compress-nio.
///
/// Encoding reproduces CouchDB's bytes exactly (`couch_stream`: zlib deflate at the configured level, a
/// 32 KB window, memory level 8, the default strategy, zlib's own gzip header), so an attachment digested
/// here gets the digest CouchDB gives it. Decoding checks the header, the DEFLATE data and the
/// CRC-32 and size trailer, so damaged bytes are refused rather than stored.
package enum Gzip {
    /// Why gzip data could not be decoded.
    package struct Failure: Error, Sendable, Equatable {
        /// What was wrong.
        package var reason: String
        /// Whether the data decodes to more than the limit (rather than being damaged).
        package var isOverLimit = false
    }

    /// The gzip member of `bytes` at zlib `level` (1…9), as CouchDB writes it; nil if zlib fails (it only
    /// fails without memory: compress-nio sizes the output buffer by zlib's own bound), and the caller then
    /// keeps the bytes unencoded.
    package static func encode(_ bytes: [UInt8], level: Int) -> [UInt8]? {
        var input = ByteBuffer(bytes: bytes)
        guard let output = try? input.compress(with: .gzip(configuration: couchConfiguration(level: level))) else { return nil }
        return Array(output.readableBytesView)
    }

    /// CouchDB's zlib settings at `level` (clamped to 1…9): a 32 KB window, memory level 8, the default
    /// strategy. Streamed compression uses them too, so both give the same bytes.
    static func couchConfiguration(level: Int) -> ZlibConfiguration {
        ZlibConfiguration(windowSize: 15, compressionLevel: Int32(min(max(level, 1), 9)), memoryLevel: 8, strategy: .default)
    }

    /// The decompressed bytes of `data`, which must decode to at most `limit` bytes.
    /// - Throws: ``Failure`` naming what is wrong: not gzip, damaged or cut-short data, or more output
    ///   than `limit`.
    package static func decode(_ data: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        // zlib would also accept a raw zlib stream when asked for gzip; the magic bytes make it gzip only.
        guard data.count >= 18, data[0] == 0x1F, data[1] == 0x8B, data[2] == 8 else {
            throw Failure(reason: "not gzip data")
        }
        var input = ByteBuffer(bytes: data)
        let output: ByteBuffer
        do {
            output = try input.decompress(with: .gzip(), maxSize: max(limit, 1))
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw Failure(reason: "the data decodes to more than \(limit) bytes", isOverLimit: true)
        } catch let error as CompressNIOError {
            throw Failure(reason: "damaged gzip data (\(error.description))")
        } catch {
            throw Failure(reason: "damaged gzip data (\(error))")
        }
        guard output.readableBytes <= limit else {
            throw Failure(reason: "the data decodes to more than \(limit) bytes", isOverLimit: true)
        }
        guard input.readableBytes == 0 else { throw Failure(reason: "data follows the end of the gzip member") }
        let bytes = Array(output.readableBytesView)
        // compress-nio returns what it decoded when the input runs out before the member ends, so the
        // trailer is checked here: a cut-short member does not end in its own CRC-32 and size.
        guard littleEndian(data, at: data.count - 8) == CRC32.checksum(bytes),
            littleEndian(data, at: data.count - 4) == UInt32(truncatingIfNeeded: bytes.count)
        else { throw Failure(reason: "the gzip data ends early or its checksum does not match") }
        return bytes
    }

    /// The length a gzip member says its content has (its trailer's ISIZE: the length modulo 2³²), or nil
    /// for bytes too short to be gzip.
    package static func declaredLength(_ data: [UInt8]) -> Int? {
        guard data.count >= 18 else { return nil }
        return Int(littleEndian(data, at: data.count - 4))
    }

    private static func littleEndian(_ bytes: [UInt8], at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { value, offset in value | UInt32(bytes[index + offset]) << (8 * offset) }
    }
}

/// CRC-32 as gzip's trailer uses it (the IEEE polynomial, reflected).
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
