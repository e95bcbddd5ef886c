public import Foundation

/// How a peer message's payload is cut to fit a transport's message-size limit, and put back together.
///
/// A payload (the JSON of a revision reply or push) larger than the limit travels as numbered pieces of one
/// transfer; each message carries one piece and `{"transfer", "index", "count"}` under
/// ``OTFWatchConnectivityPeer/chunkKey``. Pure values, so the cutting can be tested without a transport.
///
/// ```swift
/// let pieces = PeerMessageChunks.split(payload, transfer: "T1", pieceSize: 60_000)
/// var assembly = PeerMessageChunks.Assembly(count: pieces.count)
/// for piece in pieces { try assembly.add(piece) }
/// assembly.payload == payload   // true
/// ```
public enum PeerMessageChunks {
    /// One piece of a transfer.
    public struct Piece: Sendable, Hashable {
        /// The transfer the piece belongs to.
        public var transfer: String
        /// The piece's position, from 0.
        public var index: Int
        /// How many pieces the transfer has.
        public var count: Int
        /// The piece's bytes.
        public var bytes: Data

        /// Creates a piece.
        public init(transfer: String, index: Int, count: Int, bytes: Data) {
            self.transfer = transfer
            self.index = index
            self.count = count
            self.bytes = bytes
        }

        /// The piece's header, as a message carries it under ``OTFWatchConnectivityPeer/chunkKey``.
        public var header: [String: any Sendable] { ["transfer": transfer, "index": index, "count": count] }

        /// Reads a piece from a message's header and bytes.
        /// - Returns: `nil` when the header is missing or malformed.
        public init?(header: Any?, bytes: Any?) {
            guard let header = header as? [String: Any], let transfer = header["transfer"] as? String,
                let index = header["index"] as? Int, let count = header["count"] as? Int,
                let bytes = bytes as? Data, count > 0, (0..<count).contains(index)
            else { return nil }
            self.init(transfer: transfer, index: index, count: count, bytes: bytes)
        }
    }

    /// `payload` cut into pieces of at most `pieceSize` bytes (at least one piece, empty for an empty payload).
    public static func split(_ payload: Data, transfer: String, pieceSize: Int) -> [Piece] {
        let size = max(pieceSize, 1)
        let count = max(1, (payload.count + size - 1) / size)
        return (0..<count).map { index in
            let start = payload.startIndex + index * size
            let end = min(start + size, payload.endIndex)
            return Piece(transfer: transfer, index: index, count: count, bytes: payload.subdata(in: start..<end))
        }
    }

    /// The pieces of one transfer received so far.
    public struct Assembly: Sendable {
        /// How many pieces the transfer has.
        public let count: Int
        private var pieces: [Int: Data] = [:]

        /// Starts an assembly of `count` pieces.
        public init(count: Int) { self.count = count }

        /// Whether every piece arrived.
        public var isComplete: Bool { pieces.count == count }

        /// Adds a piece (a repeat of a piece already held is ignored, so a resent message does no harm).
        /// - Throws: ``PeerMessageChunks/AssemblyError`` when the piece belongs to a transfer of another size.
        public mutating func add(_ piece: Piece) throws(AssemblyError) {
            guard piece.count == count, (0..<count).contains(piece.index) else {
                throw AssemblyError(transfer: piece.transfer, index: piece.index, count: piece.count, expected: count)
            }
            pieces[piece.index] = pieces[piece.index] ?? piece.bytes
        }

        /// The whole payload, once ``isComplete``.
        public var payload: Data? {
            guard isComplete else { return nil }
            return (0..<count).reduce(into: Data()) { whole, index in whole.append(pieces[index] ?? Data()) }
        }
    }

    /// A piece that does not fit the transfer it names.
    public struct AssemblyError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The transfer named.
        public var transfer: String
        /// The piece's index.
        public var index: Int
        /// The piece count the piece declares.
        public var count: Int
        /// The piece count the transfer has.
        public var expected: Int

        /// What is wrong.
        public var description: String {
            "Piece \(index) of transfer \(transfer) declares \(count) pieces, but the transfer has \(expected); "
                + "start the synchronisation again."
        }
    }
}
