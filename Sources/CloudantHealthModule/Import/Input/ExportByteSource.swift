internal import Foundation

/// Where the bytes of `export.xml` come from: a file, standard input, a zip member or a gzip stream being
/// inflated. Read from one thread (the importer's).
protocol ExportByteSource: AnyObject {
    /// Up to `capacity` bytes; empty at the end.
    func read(upTo capacity: Int) throws -> Data
    /// Releases the source early (a producing thread is told to stop).
    func stop()
}

/// A file or standard input, read through its handle.
final class HandleByteSource: ExportByteSource {
    private let handle: FileHandle
    private let closes: Bool

    /// Reads `handle`; closes it when stopped if `closes` (not standard input).
    init(_ handle: FileHandle, closes: Bool) {
        self.handle = handle
        self.closes = closes
    }

    func read(upTo capacity: Int) throws -> Data { try handle.read(upToCount: capacity) ?? Data() }

    func stop() {
        if closes { try? handle.close() }
    }

    deinit { stop() }
}

/// Bytes already read (to recognise the format) served before the rest of the source.
final class PrefixedByteSource: ExportByteSource {
    private var prefix: Data
    private let rest: any ExportByteSource

    init(prefix: Data, rest: any ExportByteSource) {
        self.prefix = prefix
        self.rest = rest
    }

    func read(upTo capacity: Int) throws -> Data {
        guard prefix.isEmpty else {
            let count = min(capacity, prefix.count)
            let chunk = prefix.prefix(count)
            prefix = Data(prefix.dropFirst(count))
            return Data(chunk)
        }
        return try rest.read(upTo: capacity)
    }

    func stop() { rest.stop() }
}

extension ExportByteSource {
    /// Reads until `count` bytes or the end: pipes hand out what they have, not what was asked for.
    func readFully(_ count: Int) throws -> Data {
        var data = Data()
        while data.count < count {
            let chunk = try read(upTo: count - data.count)
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return data
    }
}

/// What the first bytes of an input say it is.
enum ExportFormat: Equatable {
    /// A zip archive (`PK\u{3}\u{4}`; an empty archive starts `PK\u{5}\u{6}`).
    case zip
    /// A gzip stream (`1F 8B`).
    case gzip
    /// Anything else: read as XML, which refuses what is not an Apple Health export.
    case xml

    /// How many leading bytes ``init(magic:)`` looks at.
    static let magicLength = 4

    init(magic: Data) {
        let bytes = Array(magic.prefix(Self.magicLength))
        if bytes.count >= 4, bytes[0] == 0x50, bytes[1] == 0x4B, (bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6) {
            self = .zip
        } else if bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B {
            self = .gzip
        } else {
            self = .xml
        }
    }
}
