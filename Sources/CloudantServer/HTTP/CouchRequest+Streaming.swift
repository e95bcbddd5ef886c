internal import HTTPTypes
internal import Hummingbird

extension CouchRequest {
    /// Whether a request is an attachment `PUT` (`/{db}/{docid}/{attname}`, `/{db}/_design/{ddoc}/{attname}`),
    /// whose body streams to the store instead of being collected: it may be far larger than
    /// ``ServerConfiguration/maxRequestBodySize``. Mirrors the routing in `CouchEndpoint+Routing`.
    static func isAttachmentUpload(method: HTTPRequest.Method, segments: [String]) -> Bool {
        // `/_node/{node}/_config/{section}/{key}` is a server endpoint, not a database's document.
        guard method == .put, segments.count >= 3, segments[0] != "_node" else { return false }
        let second = segments[1]
        // Under a design document, a name starting with `_` is a design function's endpoint (`_update`,
        // `_rewrite`, `_info`…), never an attachment: CouchDB refuses such attachment names.
        if second == "_design" { return segments.count >= 4 && !segments[3].hasPrefix("_") }
        return !second.hasPrefix("_")
    }

    /// Whether a request is a document `PUT` with a `multipart/related` body (`/{db}/{docid}`,
    /// `/{db}/_design/{ddoc}`), whose attachment parts stream into the store as they arrive.
    static func isMultipartDocumentUpload(method: HTTPRequest.Method, segments: [String], contentType: String?) -> Bool {
        guard method == .put, contentType.flatMap({ MediaType(parsing: $0) })?.isMultipart("related") == true else {
            return false
        }
        if segments.count == 2 { return !segments[1].hasPrefix("_") || segments[1].hasPrefix("_design/") }
        return segments.count == 3 && segments[1] == "_design"
    }

    /// Whether the request's body streams to its handler instead of being collected first.
    static func streamsBody(method: HTTPRequest.Method, segments: [String], contentType: String?) -> Bool {
        isAttachmentUpload(method: method, segments: segments)
            || isMultipartDocumentUpload(method: method, segments: segments, contentType: contentType)
    }

    /// The body in pieces: the stream when the request streams it, else the collected bytes as one piece.
    var bodyPieces: BodyPieces { BodyPieces(stream: bodyStream, collected: body) }
}

/// A request body as pieces of bytes, for `DocumentStore.putAttachment(_:documentID:rev:contentType:encoding:length:digest:maxLength:content:)`.
struct BodyPieces: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let stream: RequestBody?
    let collected: [UInt8]

    struct AsyncIterator: AsyncIteratorProtocol {
        var stream: RequestBody.AsyncIterator?
        var collected: [UInt8]?

        mutating func next() async throws -> [UInt8]? {
            guard stream != nil else {
                defer { collected = nil }
                return collected.flatMap { $0.isEmpty ? nil : $0 }
            }
            return try await stream?.next().map { Array($0.readableBytesView) }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: stream?.makeAsyncIterator(), collected: collected)
    }
}
