internal import CSystemZlib
internal import Foundation

/// The CRC-32 that zip and gzip record for their content, kept as inflated chunks pass, by zlib.
///
/// ZIPFoundation checks what it inflates with zlib's `crc32` only where it can import a module named `zlib`
/// (Apple's SDKs); on Linux it falls back to a table lookup per byte in Swift, which took 3.8 % of a
/// 200k-record import's CPU on its own. So the streams that inflate an export ask it to skip the check and
/// keep the checksum here.
struct RunningCRC32 {
    /// The checksum of the bytes so far.
    private(set) var value: UInt32 = 0

    mutating func update(with data: Data) {
        data.withUnsafeBytes { bytes in
            // zlib takes lengths as `uInt`: chunks are far below 4 GiB (``ProducedByteStream/chunkSize``).
            guard let base = bytes.bindMemory(to: Bytef.self).baseAddress else { return }
            value = UInt32(truncatingIfNeeded: crc32(uLong(value), base, uInt(bytes.count)))
        }
    }
}
