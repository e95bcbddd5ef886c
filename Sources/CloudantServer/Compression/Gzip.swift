internal import CompressNIO
internal import NIOCore

/// Decodes a gzip member (RFC 1952) with zlib, through compress-nio: zlib checks the header, the DEFLATE
/// data and the CRC-32 and size trailer, so a damaged attachment part is refused rather than stored.
enum Gzip {
    /// Why gzip data could not be decoded.
    struct Failure: Error, Sendable, Equatable {
        /// What was wrong.
        var reason: String
    }

    /// The decompressed bytes of `data`, which must decode to at most `limit` bytes.
    /// - Throws: ``Failure`` naming what is wrong: not gzip, damaged or cut-short data, or more output
    ///   than `limit`.
    static func decode(_ data: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        // zlib would also accept a raw zlib stream when asked for gzip; the magic bytes make it gzip only.
        guard data.count >= 18, data[0] == 0x1F, data[1] == 0x8B, data[2] == 8 else {
            throw Failure(reason: "not gzip data")
        }
        var input = ByteBuffer(bytes: data)
        let output: ByteBuffer
        do {
            output = try input.decompress(with: .gzip(), maxSize: max(limit, 1))
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw Failure(reason: "the data decodes to more than \(limit) bytes")
        } catch let error as CompressNIOError {
            throw Failure(reason: "damaged gzip data (\(error.description))")
        } catch {
            throw Failure(reason: "damaged gzip data (\(error))")
        }
        guard output.readableBytes <= limit else { throw Failure(reason: "the data decodes to more than \(limit) bytes") }
        guard input.readableBytes == 0 else { throw Failure(reason: "data follows the end of the gzip member") }
        let bytes = Array(output.readableBytesView)
        // compress-nio returns what it decoded when the input runs out before the member ends, so the
        // trailer is checked here: a cut-short member does not end in its own CRC-32 and size.
        guard littleEndian(data, at: data.count - 8) == CRC32.checksum(bytes),
            littleEndian(data, at: data.count - 4) == UInt32(truncatingIfNeeded: bytes.count)
        else { throw Failure(reason: "the gzip data ends early or its checksum does not match") }
        return bytes
    }

    private static func littleEndian(_ bytes: [UInt8], at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { value, offset in value | UInt32(bytes[index + offset]) << (8 * offset) }
    }
}

/// CRC-32 as gzip's trailer uses it (the IEEE polynomial, reflected).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
