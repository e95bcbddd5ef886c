/// Reads a multipart body part by part while it streams in: it pulls the next piece of the request only
/// when the part being read needs more, so an attachment part flows into the store at the pace the disk
/// takes it, and memory holds one piece at a time.
///
/// Read each part's body to its end (``PartPieces``) before asking for the next part.
final class MultipartStreamReader: @unchecked Sendable {
    // @unchecked: one request's handler reads it, from one task, one call at a time.
    private var parser: MultipartParser
    private var source: BodyPieces.AsyncIterator
    private var pending: [MultipartParser.Event] = []
    private var next = 0
    private var ended = false

    init(body: BodyPieces, boundary: String) throws {
        do {
            parser = try MultipartParser(boundary: boundary)
        } catch {
            throw HTTPFailure(error)
        }
        source = body.makeAsyncIterator()
    }

    /// The next event, reading more of the body when none is pending; nil at the end of the body.
    private func nextEvent() async throws -> MultipartParser.Event? {
        while next == pending.count {
            guard !ended else { return nil }
            pending = []
            next = 0
            do {
                if let piece = try await source.next() {
                    pending = try parser.feed(piece)
                } else {
                    ended = true
                    try parser.finish()
                }
            } catch let error as MultipartError {
                throw HTTPFailure(error)
            }
        }
        defer { next += 1 }
        return pending[next]
    }

    /// The next part's headers, skipping what is left of the current part; nil after the last part.
    func nextPart() async throws -> [(name: String, value: String)]? {
        while let event = try await nextEvent() {
            if case .partBegan(let headers) = event { return headers }
        }
        return nil
    }

    /// The next piece of the current part's body; nil once the part has ended.
    func nextBodyPiece() async throws -> [UInt8]? {
        while let event = try await nextEvent() {
            switch event {
            case .bodyBytes(let bytes) where !bytes.isEmpty: return bytes
            case .bodyBytes: continue
            case .partEnded: return nil
            case .partBegan: return nil  // Not reached: a part ends before the next begins.
            }
        }
        return nil
    }

    /// The current part's whole body, refused past `limit` bytes.
    /// - Throws: ``HTTPFailure`` `413 too_large` past `limit`.
    func collectBody(limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let piece = try await nextBodyPiece() {
            bytes += piece
            guard bytes.count <= limit else { throw HTTPFailure.tooLarge }
        }
        return bytes
    }

    /// The current part's body as pieces, for the store to stage.
    var partPieces: PartPieces { PartPieces(reader: self) }

    /// The body of the part being read, in pieces.
    struct PartPieces: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        let reader: MultipartStreamReader

        struct AsyncIterator: AsyncIteratorProtocol {
            let reader: MultipartStreamReader
            mutating func next() async throws -> [UInt8]? { try await reader.nextBodyPiece() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }
    }
}
