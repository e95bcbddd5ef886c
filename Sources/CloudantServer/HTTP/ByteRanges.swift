internal import CloudantStore
internal import Hummingbird

/// `Range: bytes=…` requests for attachments stored unencoded, as CouchDB answers them: one range as a
/// `206` with `Content-Range`, several (fewer than ten) as `multipart/byteranges`, anything else whole.
enum ByteRanges {
    /// An inclusive byte range.
    struct Range: Equatable {
        var from: Int
        var to: Int
    }

    /// The ranges a `Range` header asks of `length` bytes, clamped to the content as CouchDB clamps them;
    /// nil to answer with the whole content (no header, a malformed one, `bytes=0-`, or ten ranges or more).
    /// - Throws: ``HTTPFailure`` `416 requested_range_not_satisfiable` for a range that ends before it starts.
    static func parse(_ header: String?, length: Int) throws -> [Range]? {
        guard let header, header.hasPrefix("bytes=") else { return nil }
        var ranges: [Range] = []
        // mochiweb's `parse_range_request/1`: empty entries are skipped, `-N` is a suffix, and an entry is split
        // at its dashes with empty parts dropped (`string:tokens/2`), so `5` and `5-` both start at byte 5.
        for spec in header.dropFirst("bytes=".count).split(separator: ",") {
            let entry = spec.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            let from: Int?
            let to: Int?
            if entry.hasPrefix("-") {
                guard let suffix = Int(entry.dropFirst()) else { return nil }
                (from, to) = (nil, suffix)
            } else {
                let bounds = entry.split(separator: "-")
                guard (1...2).contains(bounds.count), let start = Int(bounds[0]) else { return nil }
                if bounds.count == 1 {
                    (from, to) = (start, nil)
                } else {
                    guard let end = Int(bounds[1]) else { return nil }
                    (from, to) = (start, end)
                }
            }
            switch (from, to) {
            case (0?, nil): return nil  // The whole content: answered as a plain 200.
            case (let from?, let to?):
                guard to >= from else {
                    throw HTTPFailure(
                        status: 416, error: "requested_range_not_satisfiable", reason: "Requested range not satisfiable")
                }
                ranges.append(Range(from: from, to: min(to, length - 1)))
            case (let from?, nil): ranges.append(Range(from: from, to: length - 1))
            case (nil, let suffix?): ranges.append(Range(from: max(0, length - suffix), to: length - 1))
            case (nil, nil): return nil
            }
        }
        guard !ranges.isEmpty, ranges.count < 10, ranges.allSatisfy({ $0.from <= $0.to && $0.from < length }) else {
            return ranges.isEmpty || ranges.count >= 10 ? nil : try unsatisfiable()
        }
        return ranges
    }

    private static func unsatisfiable() throws -> [Range]? {
        throw HTTPFailure(status: 416, error: "requested_range_not_satisfiable", reason: "Requested range not satisfiable")
    }

    /// The `206` answer for `ranges` of an attachment's stored bytes, streamed from the store: one range
    /// as it is, several as the parts of a `multipart/byteranges` body.
    static func response(
        _ ranges: [Range], of attachment: AttachmentContent, contentType: String, headers: [(String, String)]
    ) -> Response {
        let total = attachment.info.encodedLength
        if ranges.count == 1, let range = ranges.first {
            return CouchResponse.streamed(
                attachment.storedBytes(in: range.from..<(range.to + 1)), length: range.to - range.from + 1, status: 206,
                contentType: contentType, headers: [("Content-Range", "bytes \(range.from)-\(range.to)/\(total)")] + headers)
        }
        let writer = MultipartWriter(boundary: MultipartWriter.randomBoundary())
        let parts = ranges.enumerated().map { index, range in
            (writer.partHead(
                headers: [("Content-Type", contentType), ("Content-Range", "bytes \(range.from)-\(range.to)/\(total)")],
                isFirst: index == 0),
             attachment.storedBytes(in: range.from..<(range.to + 1)))
        }
        let closing = writer.closing()
        let length = parts.reduce(closing.count) { $0 + $1.0.count } + ranges.reduce(0) { $0 + $1.to - $1.from + 1 }
        let body = ResponseBody(contentLength: length) { sink in
            for (head, pieces) in parts {
                try await sink.write(ByteBuffer(bytes: head))
                for try await piece in pieces { try await sink.write(ByteBuffer(bytes: piece)) }
            }
            try await sink.write(ByteBuffer(bytes: closing))
            try await sink.finish(nil)
        }
        var responseHeaders = CouchResponse.baseHeaders(
            contentType: writer.contentType("byteranges"), extra: headers.filter { AttachmentSafety.names.contains($0.0) })
        responseHeaders[.contentLength] = String(length)
        return Response(status: .init(code: 206), headers: responseHeaders, body: body)
    }
}
