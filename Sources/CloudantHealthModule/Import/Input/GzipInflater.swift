internal import CloudantCore
internal import Foundation
internal import ZIPFoundation

/// Inflates a gzip stream (RFC 1952: `export.xml.gz`, or a gzipped export on standard input) with the raw
/// inflater ZIPFoundation already links, on a ``ProducedByteStream``'s thread, and checks its CRC-32 and
/// length at the end.
///
/// Why not zlib's inflater directly: ZIPFoundation's public `Data.decompress` already drives it; only the
/// checksum is kept here (``RunningCRC32``), with zlib's own CRC-32.
enum GzipInflater {
    /// The stream of `source`'s inflated bytes; `name` is what errors call the input.
    static func stream(of source: any ExportByteSource, name: String) -> ProducedByteStream {
        let input = SourceBox(source)
        return ProducedByteStream(threadName: "health-import-gunzip") { emit in
            var reader = CompressedReader(source: input.source)
            try inflate(&reader, name: name, emit: emit)
        }
    }

    /// The length a file's gzip trailer gives (its last four bytes, little-endian; modulo 2^32 as RFC 1952
    /// says), for progress; `nil` when the file is shorter than a gzip stream.
    static func inflatedLength(ofFile url: URL) -> Int? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 18 else { return nil }
        try? handle.seek(toOffset: size - 4)
        guard let trailer = try? handle.read(upToCount: 4), trailer.count == 4 else { return nil }
        return trailer.reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    private static func inflate(_ reader: inout CompressedReader, name: String, emit: (Data) throws -> Void) throws {
        try reader.skipHeader(name: name)
        var length: UInt64 = 0
        var checksum = RunningCRC32()
        _ = try Data.decompress(
            size: Int64.max, bufferSize: ProducedByteStream.chunkSize, skipCRC32: true,
            provider: { _, size in try reader.next(size, name: name) },
            consumer: { data in
                length += UInt64(data.count)
                checksum.update(with: data)
                try emit(data)
            })
        let trailer = try reader.trailer()
        let expectedChecksum = trailer.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let expectedLength = trailer.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard trailer.count == 8, expectedChecksum == checksum.value, expectedLength == UInt32(truncatingIfNeeded: length) else {
            throw InputEndedEarly(
                reason: "the gzip data of \(name) fails its checksum: the file is damaged (or holds several gzip streams)")
        }
    }

    /// Hands the reading side's source to the inflating thread.
    private final class SourceBox: @unchecked Sendable {
        // Only the inflating thread touches `source` once the stream has started.
        let source: any ExportByteSource
        init(_ source: any ExportByteSource) { self.source = source }
    }

    /// The compressed bytes, read in exact-size chunks with the last eight real bytes kept (the trailer).
    private struct CompressedReader {
        let source: any ExportByteSource
        private var ended = false
        private var last = Data()

        init(source: any ExportByteSource) { self.source = source }

        /// RFC 1952 §2.3: magic, method 8, flags, then the optional extra field, name, comment and CRC-16.
        mutating func skipHeader(name: String) throws {
            var header = try take(10)
            guard header.count == 10, header[header.startIndex] == 0x1F, header[header.startIndex + 1] == 0x8B,
                header[header.startIndex + 2] == 8
            else { throw CloudantError(.invalidHealthExport, "\(name) is not a gzip file it can inflate.", context: .init(field: name)) }
            let flags = header[header.startIndex + 3]
            if flags & 0x04 != 0 {
                header = try take(2)
                guard header.count == 2 else { throw InputEndedEarly(reason: "\(name) ends inside its gzip header") }
                _ = try take(Int(header[header.startIndex]) | Int(header[header.startIndex + 1]) << 8)
            }
            for flag in [UInt8(0x08), 0x10] where flags & flag != 0 {
                while let byte = try take(1).first, byte != 0 {}
            }
            if flags & 0x02 != 0 { _ = try take(2) }
        }

        /// Exactly `count` bytes while the source has them. ZIPFoundation's inflater tells zlib a whole
        /// buffer is there whatever it is given, so a short last chunk is padded with zeros (which zlib refuses
        /// as data, should it read them); after that the stream has ended early.
        mutating func next(_ count: Int, name: String) throws -> Data {
            guard !ended else { throw InputEndedEarly(reason: "the gzip data of \(name) ends early: the file was cut short") }
            var chunk = try take(count)
            if chunk.count < count {
                ended = true
                guard !chunk.isEmpty else {
                    throw InputEndedEarly(reason: "the gzip data of \(name) ends early: the file was cut short")
                }
                chunk.append(Data(count: count - chunk.count))
            }
            return chunk
        }

        /// The last eight bytes of the input, reading what is left of it.
        mutating func trailer() throws -> Data {
            while !ended {
                if try take(ProducedByteStream.chunkSize).isEmpty { ended = true }
            }
            return last
        }

        private mutating func take(_ count: Int) throws -> Data {
            let data = try source.readFully(count)
            last = data.count >= 8 ? Data(data.suffix(8)) : Data((last + data).suffix(8))
            return data
        }
    }
}

/// The input ended before its format said it would (a cut-short gzip file): the import keeps what it read
/// and reports where it stopped, as it does for a cut-short `export.xml`.
struct InputEndedEarly: Error {
    let reason: String
}
