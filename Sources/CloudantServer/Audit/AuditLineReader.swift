internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Reads an audit segment's lines: forwards in fixed-size chunks (listing, verifying) or backwards from the
/// end (resuming the chain), so a busy day's segment, which can run to gigabytes, is never in memory whole.
enum AuditLineReader {
    /// How much is read at a time; a line longer than this (a bulk request naming thousands of documents)
    /// grows the buffer to hold it.
    static let chunkSize = 1 << 16

    /// What a forward read found.
    struct Outcome {
        /// Complete lines handed to the body.
        var lines: Int
        /// Whether bytes without a newline followed the last complete line (only known when not stopped).
        var torn: Bool
    }

    /// Calls `body` with each complete line (without its newline) and its 1-based number, oldest first, until
    /// `body` returns false.
    static func forEachLine(in url: URL, _ body: (Int, ArraySlice<UInt8>) throws -> Bool) throws -> Outcome {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        var number = 0
        // Bytes before `scanned` hold no newline, so each byte is searched once however long its line.
        var scanned = 0
        while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
            buffer.append(contentsOf: chunk)
            var start = 0
            while let newline = newlineIndex(in: buffer, from: scanned) {
                number += 1
                guard try body(number, buffer[start..<newline]) else { return Outcome(lines: number, torn: false) }
                start = newline + 1
                scanned = start
            }
            buffer.removeSubrange(0..<start)
            scanned = buffer.count
        }
        return Outcome(lines: number, torn: !buffer.isEmpty)
    }

    /// What a backward read found.
    struct Tail {
        /// The newest complete line that reads back as an entry, if any.
        var entry: AuditEntry?
        /// The offset just past the last newline: what is left of the file once a torn line is cut off.
        var wholeLinesEnd: UInt64
        /// The file's size.
        var size: UInt64
    }

    /// The newest complete line of `url` that reads back as an entry, reading windows from the end that grow
    /// until one holds it (the last line is nearly always it, so this reads the last few kilobytes).
    static func tail(of url: URL, codec: AuditLineCodec = .plain) throws -> Tail {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        var window = UInt64(chunkSize)
        var wholeLinesEnd: UInt64?
        while true {
            let start = size > window ? size - window : 0
            try handle.seek(toOffset: start)
            let bytes = [UInt8](try handle.read(upToCount: Int(size - start)) ?? Data())
            if let lastNewline = bytes.lastIndex(of: 10) {
                let end = wholeLinesEnd ?? start + UInt64(lastNewline + 1)
                wholeLinesEnd = end
                // Complete lines from the newest back; the window's first line may begin before the window.
                var lineEnd = lastNewline
                while let lineStart = bytes[..<lineEnd].lastIndex(of: 10).map({ $0 + 1 }) ?? (start == 0 ? 0 : nil) {
                    if let line = try? codec.decode(bytes[lineStart..<lineEnd]), let entry = try? AuditLine.parse(line) {
                        return Tail(entry: entry, wholeLinesEnd: end, size: size)
                    }
                    guard lineStart > 0 else { break }
                    lineEnd = lineStart - 1
                }
            }
            if start == 0 { return Tail(entry: nil, wholeLinesEnd: wholeLinesEnd ?? 0, size: size) }
            window *= 4
        }
    }

    /// How many complete lines `url` holds (a torn last line is not one), reading no further than the size it
    /// had when opened (a device in a segment's place, such as `/dev/full`, reads as empty).
    static func countLines(in url: URL) throws -> Int {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var left = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        var count = 0
        while left > 0, let chunk = try handle.read(upToCount: Int(min(UInt64(chunkSize), left))), !chunk.isEmpty {
            left -= UInt64(chunk.count)
            count += chunk.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
        }
        return count
    }

    /// The index of the first newline at or after `start`, found with `memchr` (this is the listing's and
    /// the verification's inner loop).
    private static func newlineIndex(in buffer: [UInt8], from start: Int) -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base + start, 10, bytes.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }
}
