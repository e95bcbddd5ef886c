internal import Foundation

/// Streams a file to libxml2's reader in fixed-size chunks, replacing the C0 control characters XML 1.0
/// forbids (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F) with spaces and counting them, so one stray
/// vertical tab in a source name (iOS 16 exports) does not end the import.
///
/// The bytes are replaced rather than removed so line and column numbers in reports stay true. In UTF-8
/// these code points are single bytes that never occur inside a multi-byte sequence, so a byte-wise pass
/// is exact. The head of the file also goes through ``InternalSubsetRepair``.
final class SanitizingFileInput {
    private let source: any ExportByteSource
    /// How many forbidden characters were replaced.
    private(set) var replacedCharacters = 0
    /// Bytes handed to libxml2 so far.
    private(set) var bytesRead = 0
    /// A read failure, surfaced after parsing.
    private(set) var readError: (any Error)?
    /// Why the input ended before its own format said it would (a cut-short gzip file), if it did; libxml2
    /// then sees the end of the input, and the import reports where it stopped.
    private(set) var endedEarly: String?

    /// Declarations in the internal DTD subset that were closed (see ``InternalSubsetRepair``).
    private(set) var repairedDeclarations = 0
    /// The repaired head of the file, served before the rest.
    private let head: [UInt8]
    private var headOffset = 0

    convenience init(url: URL) throws {
        try self.init(HandleByteSource(try FileHandle(forReadingFrom: url), closes: true))
    }

    /// Reads `source`, whose head (up to ``InternalSubsetRepair/headLimit`` bytes) is read at once.
    init(_ source: any ExportByteSource) throws {
        self.source = source
        var prefix: [UInt8] = []
        do {
            while prefix.count < InternalSubsetRepair.headLimit {
                let chunk = try source.read(upTo: InternalSubsetRepair.headLimit - prefix.count)
                if chunk.isEmpty { break }
                prefix.append(contentsOf: chunk)
            }
        } catch let early as InputEndedEarly {
            endedEarly = early.reason
        }
        let repaired = InternalSubsetRepair.repair(prefix)
        head = repaired.bytes
        repairedDeclarations = repaired.repairs
    }

    deinit { source.stop() }

    /// The first bytes of the input (after the DTD repair), for recognising the export a checkpoint names.
    var headBytes: ArraySlice<UInt8> { head[...] }

    /// Spaces served after the input's last byte, before its end is reported (see ``read(into:capacity:)``).
    static let trailingPadding = 2048
    private var paddingLeft = SanitizingFileInput.trailingPadding

    /// Fills `buffer` with up to `capacity` sanitised bytes; 0 at the end, -1 on error.
    ///
    /// After the last byte, ``trailingPadding`` spaces come before the end. libxml2's reader stops handing
    /// out nodes at the first fatal error, and it parses ahead of what it hands out by one 512-byte step: a
    /// file cut mid-record used to lose the complete records in the step where the end was met. Spaces keep
    /// an unfinished tag, attribute value or text unfinished without an error, so every record before the
    /// cut is handed out before libxml2 meets the end; after a complete document they are allowed trailing
    /// whitespace. They are not counted in ``bytesRead``.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32 {
        do {
            let chunk: Data
            if headOffset < head.count {
                let end = min(head.count, headOffset + capacity)
                chunk = Data(head[headOffset..<end])
                headOffset = end
            } else {
                guard endedEarly == nil else { return pad(buffer, capacity: capacity) }
                let next: Data
                do { next = try source.read(upTo: capacity) } catch let early as InputEndedEarly {
                    endedEarly = early.reason
                    return pad(buffer, capacity: capacity)
                }
                guard !next.isEmpty else { return pad(buffer, capacity: capacity) }
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

    /// Serves the next spaces of the trailing padding; 0 once they are served.
    private func pad(_ buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32 {
        let count = min(capacity, paddingLeft)
        guard count > 0 else { return 0 }
        buffer.update(repeating: CChar(UInt8(ascii: " ")), count: count)
        paddingLeft -= count
        return Int32(count)
    }
}
