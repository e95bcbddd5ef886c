/// Writes a MIME multipart body the way CouchDB frames it: `--boundary`, CRLF, the part's headers, an
/// empty line and its bytes; CRLF `--boundary` before each next part; CRLF `--boundary--` at the end.
///
/// ```swift
/// var writer = MultipartWriter(boundary: MultipartWriter.randomBoundary())
/// writer.addPart(headers: [("Content-Type", "application/json")], body: json)
/// let body = writer.finish()
/// ```
struct MultipartWriter: Sendable {
    /// The boundary between parts.
    let boundary: String
    private var bytes: [UInt8] = []
    private var partCount = 0

    /// A writer separating parts with `boundary`, which must not occur in any part.
    init(boundary: String) { self.boundary = boundary }

    /// A fresh boundary: 32 random hex digits, as CouchDB's `couch_uuids:random()`. Part bodies are not
    /// scanned for it, because 128 random bits cannot plausibly occur in them.
    static func randomBoundary() -> String { Hex.encode(SecureRandom.bytes(16)) }

    /// The `Content-Type` for this body: `multipart/<subtype>; boundary="…"`.
    func contentType(_ subtype: String) -> String { "multipart/\(subtype); boundary=\"\(boundary)\"" }

    /// Appends one part. Line breaks in header names and values are dropped: they come from stored data
    /// (attachment names, content types) and must not be able to start a header or a part of their own.
    mutating func addPart(headers: [(String, String)], body: some Sequence<UInt8>) {
        bytes.append(contentsOf: partHead(headers: headers, isFirst: partCount == 0))
        bytes.append(contentsOf: body)
        partCount += 1
    }

    /// The bytes that open a part (the boundary line and the headers), for a body streamed part by part:
    /// each part's head, then its bytes, and ``closing()`` after the last.
    func partHead(headers: [(String, String)], isFirst: Bool) -> [UInt8] {
        var head: [UInt8] = isFirst ? [] : [13, 10]
        head.append(contentsOf: Array("--\(boundary)\r\n".utf8))
        for (name, value) in headers {
            let line = Array("\(name): \(value)".utf8).filter { $0 != 13 && $0 != 10 }
            head.append(contentsOf: line + [13, 10])
        }
        head.append(contentsOf: [13, 10])
        return head
    }

    /// The bytes that close a streamed body of at least one part.
    func closing() -> [UInt8] { Array("\r\n--\(boundary)--".utf8) }

    /// The complete body, closed with `--boundary--`.
    func finish() -> [UInt8] {
        var closed = bytes
        if partCount > 0 { closed.append(contentsOf: [13, 10]) }
        closed.append(contentsOf: Array("--\(boundary)--".utf8))
        return closed
    }
}
