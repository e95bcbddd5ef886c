/// One part of a MIME multipart body: its header fields and its bytes.
struct MultipartPart: Sendable, Equatable {
    /// The header fields in the order they came, names as written.
    var headers: [(name: String, value: String)]
    /// The part's body.
    var body: [UInt8]

    init(headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.headers = headers
        self.body = body
    }

    /// The value of the header `name`, compared case-insensitively as HTTP and MIME require.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The part's `Content-Type`, parsed.
    var contentType: MediaType? { header("Content-Type").flatMap { MediaType(parsing: $0) } }

    static func == (lhs: MultipartPart, rhs: MultipartPart) -> Bool {
        lhs.body == rhs.body && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 }
    }
}

/// Why a multipart body could not be read, and where: the parser's own error, turned into CouchDB's
/// `400 bad_request` only at the HTTP edge.
struct MultipartError: Error, Sendable, Equatable {
    /// What was wrong, in words a client developer can act on.
    var reason: String
    /// The byte offset in the body at which the problem was found.
    var offset: Int
}

extension HTTPFailure {
    /// `400 bad_request` for a malformed multipart body, naming the problem and its position.
    init(_ error: MultipartError) {
        self = .badRequest("Malformed multipart body at byte \(error.offset): \(error.reason)")
    }
}
