public import CloudantCore
internal import CompressNIO
internal import NIOCore

/// An attachment's bytes in pieces, read from the store as they are consumed: at most one piece (and, when
/// decoding, zlib's window) is in memory at a time, whatever the attachment's size.
///
/// ```swift
/// let content = try await store.attachmentContent(documentID: "scan", name: "mri.dcm")
/// for try await piece in content.contentBytes() { try output.write(contentsOf: piece) }
/// ```
public struct AttachmentPieces: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let source: AttachmentStorage.Source
    let range: Range<Int>
    let pieceSize: Int
    /// Inflate gzip bytes on the way (the content as written), checking their length.
    let decodedLength: Int?

    /// Reads pieces in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pieces: AttachmentPieces
        var offset: Int
        var decoder: (any NIODecompressor)?
        var produced = 0

        /// The next piece, or nil after the last.
        public mutating func next() async throws -> [UInt8]? {
            guard let expected = pieces.decodedLength else {
                guard offset < pieces.range.upperBound else { return nil }
                let piece = try pieces.source.read(at: offset, length: Swift.min(pieces.pieceSize, pieces.range.upperBound - offset))
                offset += piece.count
                return piece
            }
            return try nextDecoded(expected: expected)
        }

        private mutating func nextDecoded(expected: Int) throws -> [UInt8]? {
            if decoder == nil {
                let decompressor = CompressionAlgorithm.gzip().decompressor
                decompressor.window = ByteBufferAllocator().buffer(capacity: pieces.pieceSize)
                try decompressor.startStream()
                decoder = decompressor
            }
            guard let decoder else { return nil }
            while offset < pieces.range.upperBound {
                let stored = try pieces.source.read(at: offset, length: Swift.min(pieces.pieceSize, pieces.range.upperBound - offset))
                offset += stored.count
                var input = ByteBuffer(bytes: stored)
                var output: [UInt8] = []
                do {
                    try input.decompressStream(with: decoder) { output += $0.readableBytesView }
                } catch {
                    throw CloudantError(.invalidInput, "The stored bytes of an attachment are damaged (\(error)).")
                }
                produced += output.count
                guard produced <= expected else {
                    throw CloudantError(.invalidInput, "The stored bytes of an attachment decode to more than its length.")
                }
                if !output.isEmpty { return output }
            }
            try? decoder.finishStream()
            guard produced == expected else {
                throw CloudantError(.invalidInput, "The stored bytes of an attachment decode to \(produced) bytes, not its length \(expected).")
            }
            return nil
        }
    }

    /// Starts reading from the first piece.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pieces: self, offset: range.lowerBound)
    }
}

/// One attachment of a stored revision, ready to be read in pieces (``AttachmentPieces``) rather than
/// whole. A large attachment's file stays readable while this value lives, even if a compaction removes it
/// from the store meanwhile.
public struct AttachmentContent: Sendable {
    /// The attachment name.
    public let name: String
    /// Its metadata (content type, digest, lengths, encoding, revpos).
    public let info: AttachmentInfo
    let source: AttachmentStorage.Source

    /// The default piece size: 256 KB.
    public static let defaultPieceSize = 256 * 1024

    /// The bytes as stored (gzip when `AttachmentInfo.encoding` is `.gzip`; their MD5 is the digest), or
    /// the stored bytes in `range` (clipped to the end).
    public func storedBytes(in range: Range<Int>? = nil, pieceSize: Int = defaultPieceSize) -> AttachmentPieces {
        let whole = 0..<source.count
        let wanted = range.map { $0.clamped(to: whole) } ?? whole
        return AttachmentPieces(source: source, range: wanted, pieceSize: max(1, pieceSize), decodedLength: nil)
    }

    /// The content as written: the stored bytes, inflated on the way when stored gzip-encoded (a damaged or
    /// wrong-length stream ends the sequence with `CloudantError` `.invalidInput`).
    public func contentBytes(pieceSize: Int = defaultPieceSize) -> AttachmentPieces {
        AttachmentPieces(
            source: source, range: 0..<source.count, pieceSize: max(1, pieceSize),
            decodedLength: info.encoding == .gzip ? info.length : nil)
    }
}
