/// Reads a MIME multipart body (RFC 2046 §5.1) incrementally: feed it bytes as they arrive, in chunks of
/// any size, and it reports each part's headers, body bytes and end.
///
/// It is a state machine with no I/O, so a request body can be parsed while it streams in and the tests
/// can split a body at every byte. A boundary split across two chunks is still found: bytes that could be
/// the start of a delimiter are held back until the next chunk decides. Memory stays bounded by the
/// delimiter length and ``maxHeaderBytes``, whatever the part sizes.
///
/// Framing: each delimiter is CRLF `--boundary` (the first may open the body without a CRLF before it),
/// then optional spaces and CRLF before a part's headers, or `--` for the closing delimiter. The preamble
/// before the first delimiter and the epilogue after the closing one are ignored.
struct MultipartParser: Sendable {
    /// What the parser found in the bytes fed so far.
    enum Event: Sendable {
        /// A part starts; its header fields in order (names as written, values trimmed).
        case partBegan([(name: String, value: String)])
        /// The next bytes of the current part's body.
        case bodyBytes([UInt8])
        /// The current part's body is complete.
        case partEnded
    }

    private enum State {
        case preamble, headers, body, epilogue
    }

    /// The largest header block of one part: part headers are a few short lines, so a longer block is a
    /// broken body (or a wrong boundary), not a reason to buffer without limit.
    static let maxHeaderBytes = 16 * 1024

    private static let crlf: [UInt8] = [13, 10]
    private static let headerEnd: [UInt8] = [13, 10, 13, 10]
    private static let dash = UInt8(ascii: "-")

    private let delimiter: [UInt8]
    private var state = State.preamble
    /// Bytes not yet decided. It starts with a CRLF the input never sent, so that a delimiter opening the
    /// body needs no special case.
    private var buffer: [UInt8] = crlf
    /// The input offset of `buffer[0]` (negative for the CRLF the parser added).
    private var bufferOffset = -crlf.count

    /// A parser for parts separated by `boundary`.
    /// - Throws: ``MultipartError`` when the boundary is empty or longer than 200 characters (RFC 2046
    ///   allows 70; longer ones are accepted for lenience, absurd ones are a sign of a broken header).
    init(boundary: String) throws(MultipartError) {
        guard !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw MultipartError(reason: "the boundary must be 1 to 200 characters long", offset: 0)
        }
        delimiter = Self.crlf + [Self.dash, Self.dash] + Array(boundary.utf8)
    }

    /// The boundary named by a `multipart/…` content type, quoted or not.
    /// - Throws: ``MultipartError`` when there is none.
    static func boundary(in contentType: String?) throws(MultipartError) -> String {
        guard let boundary = contentType.flatMap({ MediaType(parsing: $0) })?.parameter("boundary"), !boundary.isEmpty else {
            throw MultipartError(reason: "the Content-Type names no boundary parameter", offset: 0)
        }
        return boundary
    }

    /// Whether the closing delimiter has been read (everything after it is ignored).
    var isComplete: Bool { state == .epilogue }

    /// Parses the next bytes of the body.
    /// - Throws: ``MultipartError`` for malformed part headers; the parser must not be fed after.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(MultipartError) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        var cursor = 0
        scanning: while true {
            switch state {
            case .preamble, .body:
                let inBody = state == .body
                guard let found = Self.search(delimiter, in: buffer, from: cursor) else {
                    // Only the last few bytes could begin a delimiter; everything before is settled.
                    let safe = max(cursor, buffer.count - (delimiter.count - 1))
                    if inBody, safe > cursor { events.append(.bodyBytes(Array(buffer[cursor..<safe]))) }
                    cursor = safe
                    break scanning
                }
                guard let kind = delimiterKind(after: found + delimiter.count) else {
                    // Undecided until more bytes arrive: settle what comes before it.
                    if inBody, found > cursor { events.append(.bodyBytes(Array(buffer[cursor..<found]))) }
                    cursor = found
                    break scanning
                }
                let end: Int
                switch kind {
                case .content:
                    // `--boundary` followed by other text is content (a sloppy writer's, RFC 2046 forbids
                    // it); keep it and look further.
                    if inBody { events.append(.bodyBytes(Array(buffer[cursor...found]))) }
                    cursor = found + 1
                    continue scanning
                case .close(let next):
                    end = next
                    state = .epilogue
                case .part(let next):
                    end = next
                    state = .headers
                }
                if inBody {
                    if found > cursor { events.append(.bodyBytes(Array(buffer[cursor..<found]))) }
                    events.append(.partEnded)
                }
                cursor = end
            case .headers:
                guard let (fields, next) = try headers(at: cursor) else { break scanning }
                events.append(.partBegan(fields))
                cursor = next
                state = .body
            case .epilogue:
                cursor = buffer.count
                break scanning
            }
        }
        buffer.removeFirst(cursor)
        bufferOffset += cursor
        return events
    }

    /// Checks that the body ended after the closing delimiter.
    /// - Throws: ``MultipartError`` for a body that ends early (a truncated upload or a wrong boundary).
    func finish() throws(MultipartError) {
        let end = bufferOffset + buffer.count
        switch state {
        case .epilogue: return
        case .preamble:
            throw MultipartError(
                reason: "no boundary line found; check the boundary parameter of the Content-Type", offset: max(0, end))
        case .headers:
            throw MultipartError(reason: "the body ends inside a part's headers", offset: end)
        case .body:
            throw MultipartError(reason: "the body ends before the closing boundary line (--boundary--)", offset: end)
        }
    }

    private enum DelimiterKind {
        /// `--`: the last part has ended; the index after it.
        case close(Int)
        /// Optional spaces and CRLF: a part follows; the index of its headers.
        case part(Int)
        /// Anything else: not a delimiter.
        case content
    }

    /// What follows `--boundary` at `index`, or nil when more bytes are needed to tell.
    private func delimiterKind(after index: Int) -> DelimiterKind? {
        guard buffer.count - index >= 2 else { return nil }
        if buffer[index] == Self.dash, buffer[index + 1] == Self.dash { return .close(index + 2) }
        var padding = index
        while padding < buffer.count, buffer[padding] == UInt8(ascii: " ") || buffer[padding] == UInt8(ascii: "\t") {
            padding += 1
            // Transport padding is a few spaces at most; a long run is content.
            if padding - index > 1000 { return .content }
        }
        guard buffer.count - padding >= 2 else { return nil }
        return buffer[padding] == 13 && buffer[padding + 1] == 10 ? .part(padding + 2) : .content
    }

    /// A part's header block, ended by an empty line. Returns the fields and the index of the body, or nil
    /// when more bytes are needed.
    private func headers(at cursor: Int) throws(MultipartError) -> ([(name: String, value: String)], Int)? {
        guard buffer.count - cursor >= 2 else { return nil }
        if buffer[cursor] == 13, buffer[cursor + 1] == 10 { return ([], cursor + 2) }
        guard let end = Self.search(Self.headerEnd, in: buffer, from: cursor) else {
            if buffer.count - cursor > Self.maxHeaderBytes {
                throw MultipartError(reason: "a part's headers are longer than 16 KiB", offset: bufferOffset + cursor)
            }
            return nil
        }
        guard end - cursor <= Self.maxHeaderBytes else {
            throw MultipartError(reason: "a part's headers are longer than 16 KiB", offset: bufferOffset + cursor)
        }
        var fields: [(name: String, value: String)] = []
        var lineStart = cursor
        while lineStart < end {
            let lineEnd = Self.search(Self.crlf, in: buffer, from: lineStart).map { min($0, end) } ?? end
            let line = buffer[lineStart..<lineEnd]
            if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t"), !fields.isEmpty {
                // An obsolete folded line continues the previous field (RFC 5322 §2.2.3).
                fields[fields.count - 1].value += " " + String(decoding: line, as: UTF8.self).trimmingSpaces
            } else {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                    throw MultipartError(reason: "a part header line is not 'Name: value'", offset: bufferOffset + lineStart)
                }
                let name = String(decoding: line[..<colon], as: UTF8.self).trimmingSpaces
                let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
                fields.append((name, value))
            }
            lineStart = lineEnd + 2
        }
        return (fields, end + Self.headerEnd.count)
    }

    /// The first index at or after `start` where `needle` occurs in `haystack`.
    static func search(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        let count = needle.count
        guard count > 0, haystack.count - count >= start else { return nil }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var index = start
                let last = hay.count - count
                while index <= last {
                    if hay[index] == first {
                        var matched = 1
                        while matched < count, hay[index + matched] == pin[matched] { matched += 1 }
                        if matched == count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}

extension MultipartParser {
    /// Every part of a complete body.
    ///
    /// ```swift
    /// let parts = try MultipartParser.parts(of: body, boundary: "abc")
    /// ```
    /// - Throws: ``MultipartError`` for a malformed or truncated body.
    static func parts(of body: [UInt8], boundary: String) throws(MultipartError) -> [MultipartPart] {
        var parser = try MultipartParser(boundary: boundary)
        var collector = PartCollector()
        collector.add(try parser.feed(body))
        try parser.finish()
        return collector.parts
    }
}

/// Assembles whole parts from a parser's events (for bodies that are held in memory anyway).
struct PartCollector: Sendable {
    /// The parts completed so far.
    private(set) var parts: [MultipartPart] = []
    private var current: MultipartPart?

    /// Applies events in order.
    mutating func add(_ events: [MultipartParser.Event]) {
        for event in events {
            switch event {
            case .partBegan(let headers): current = MultipartPart(headers: headers, body: [])
            case .bodyBytes(let bytes): current?.body.append(contentsOf: bytes)
            case .partEnded:
                if let part = current { parts.append(part) }
                current = nil
            }
        }
    }
}
