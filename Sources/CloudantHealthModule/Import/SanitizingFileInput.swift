internal import Foundation

/// Streams a file to libxml2's reader in fixed-size chunks, replacing the C0 control characters XML 1.0
/// forbids (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F) with spaces and counting them, so one stray
/// vertical tab in a source name (iOS 16 exports) does not end the import.
///
/// The bytes are replaced rather than removed so line and column numbers in reports stay true. In UTF-8
/// these code points are single bytes that never occur inside a multi-byte sequence, so a byte-wise pass
/// is exact. The head of the file also goes through ``InternalSubsetRepair``.
final class SanitizingFileInput {
    /// Where the bytes come from: a file, or a member inflated out of a zip.
    private enum Source {
        case file(FileHandle)
        case zip(ZipMemberStream)
    }

    private let source: Source
    /// How many forbidden characters were replaced.
    private(set) var replacedCharacters = 0
    /// Bytes handed to libxml2 so far.
    private(set) var bytesRead = 0
    /// A read failure, surfaced after parsing.
    private(set) var readError: (any Error)?

    /// Declarations in the internal DTD subset that were closed (see ``InternalSubsetRepair``).
    private(set) var repairedDeclarations = 0
    /// The repaired head of the file, served before the rest.
    private let head: [UInt8]
    private var headOffset = 0

    convenience init(url: URL) throws {
        try self.init(.file(try FileHandle(forReadingFrom: url)))
    }

    /// Reads a member of a zip as it is inflated.
    convenience init(zip: ZipMemberStream) throws {
        try self.init(.zip(zip))
    }

    private init(_ source: Source) throws {
        self.source = source
        var prefix: [UInt8] = []
        while prefix.count < InternalSubsetRepair.headLimit {
            let chunk = try Self.next(from: source, upTo: InternalSubsetRepair.headLimit - prefix.count)
            if chunk.isEmpty { break }
            prefix.append(contentsOf: chunk)
        }
        let repaired = InternalSubsetRepair.repair(prefix)
        head = repaired.bytes
        repairedDeclarations = repaired.repairs
    }

    deinit {
        switch source {
        case .file(let handle): try? handle.close()
        case .zip(let stream): stream.stop()
        }
    }

    private static func next(from source: Source, upTo count: Int) throws -> Data {
        switch source {
        case .file(let handle): try handle.read(upToCount: count) ?? Data()
        case .zip(let stream): try stream.read(upTo: count)
        }
    }

    /// Fills `buffer` with up to `capacity` sanitised bytes; 0 at the end, -1 on error.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32 {
        do {
            let chunk: Data
            if headOffset < head.count {
                let end = min(head.count, headOffset + capacity)
                chunk = Data(head[headOffset..<end])
                headOffset = end
            } else {
                let next = try Self.next(from: source, upTo: capacity)
                guard !next.isEmpty else { return 0 }
                chunk = next
            }
            chunk.withUnsafeBytes { bytes in
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                        replacedCharacters += 1
                        buffer[index] = 0x20
                    } else {
                        buffer[index] = CChar(bitPattern: byte)
                    }
                }
            }
            bytesRead += chunk.count
            return Int32(chunk.count)
        } catch {
            readError = error
            return -1
        }
    }
}
