internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

/// Builds responses the way CouchDB writes them: JSON with a trailing newline, `Cache-Control:
/// must-revalidate`, and `{"error","reason"}` bodies for failures.
enum CouchResponse {
    /// A JSON response.
    static func json(_ value: JSONValue, status: Int = 200, headers extra: [(String, String)] = []) -> Response {
        var bytes = value.jsonBytes()
        bytes.append(UInt8(ascii: "\n"))
        return raw(bytes, status: status, contentType: "application/json", headers: extra)
    }

    /// A JSON response from bytes already written as JSON (without the trailing newline, which this adds).
    static func json(bytes: [UInt8], status: Int = 200, headers extra: [(String, String)] = []) -> Response {
        var bytes = bytes
        bytes.append(UInt8(ascii: "\n"))
        return raw(bytes, status: status, contentType: "application/json", headers: extra)
    }

    /// `{"ok":true}` with `status`.
    static func ok(status: Int = 200) -> Response { json(["ok": true], status: status) }

    /// A response with raw bytes.
    static func raw(
        _ bytes: [UInt8], status: Int = 200, contentType: String, headers extra: [(String, String)] = []
    ) -> Response {
        var headers = baseHeaders(contentType: contentType, extra: extra)
        headers[.contentLength] = String(bytes.count)
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A response whose body streams from `pieces` (an attachment read from the store in pieces), with a
    /// known `Content-Length`.
    static func streamed(
        _ pieces: AttachmentPieces, length: Int, status: Int = 200, contentType: String,
        headers extra: [(String, String)] = []
    ) -> Response {
        var headers = baseHeaders(contentType: contentType, extra: extra)
        headers[.contentLength] = String(length)
        let body = ResponseBody(contentLength: length) { writer in
            for try await piece in pieces { try await writer.write(ByteBuffer(bytes: piece)) }
            try await writer.finish(nil)
        }
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: body)
    }

    /// A response whose body is `segments` in order, attachment segments read from `store` in pieces as
    /// the body is written (a `multipart` document answer), with an exact `Content-Length`.
    static func segments(
        _ segments: [BodySegment], from store: DocumentStore, contentType: String, headers extra: [(String, String)] = []
    ) -> Response {
        let length = segments.reduce(0) { $0 + $1.count }
        var headers = baseHeaders(contentType: contentType, extra: extra)
        headers[.contentLength] = String(length)
        let body = ResponseBody(contentLength: length) { writer in
            for segment in segments {
                switch segment {
                case .bytes(let bytes): try await writer.write(ByteBuffer(bytes: bytes))
                case .attachment(let id, let rev, let name, _):
                    let content = try await store.attachmentContent(documentID: id, name: name, rev: rev)
                    for try await piece in content.storedBytes() { try await writer.write(ByteBuffer(bytes: piece)) }
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// A response with `bytes` and exactly `headers` (and its `Content-Length`): what CouchDB's
    /// `chttpd:send_response` sends for an answer a design function wrote itself (a show's or update's `body`,
    /// a list, a rewrite's `code`), a redirect or a CORS preflight's `204`, without the `Cache-Control` and
    /// content type its JSON responses get.
    static func exact(_ bytes: [UInt8], status: Int, headers: [(String, String)]) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        fields[.contentLength] = String(bytes.count)
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `304 Not Modified` for a matching `If-None-Match`: CouchDB's `chttpd:etag_respond/3` sends the ETag and
    /// an empty body (`Content-Length: 0`), no content type.
    static func notModified(headers extra: [(String, String)]) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "must-revalidate"
        for (name, value) in extra {
            guard let field = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: field, value: value))
        }
        headers[.contentLength] = "0"
        return Response(status: .notModified, headers: headers)
    }

    /// A response with headers only (HEAD).
    static func headOnly(status: Int = 200, contentType: String = "application/json", headers extra: [(String, String)] = [])
        -> Response
    {
        Response(status: HTTPResponse.Status(code: status), headers: baseHeaders(contentType: contentType, extra: extra))
    }

    /// `response` for a `HEAD`: its status and every header, its `Content-Length` included, without its body,
    /// as CouchDB answers `HEAD` (`chttpd` serves it as the `GET` and mochiweb sends only the head).
    static func head(of response: Response) -> Response {
        Response(status: response.status, headers: response.headers)
    }

    /// An error body.
    static func failure(_ failure: HTTPFailure) -> Response {
        json(failure.body.json, status: failure.body.status, headers: failure.headers)
    }

    /// The headers every response carries.
    static func baseHeaders(contentType: String, extra: [(String, String)]) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "must-revalidate"
        for (name, value) in extra {
            guard let field = HTTPField.Name(name) else { continue }
            // A handler's own Cache-Control (`/_uuids`' `no-cache`) or content type (a show's `json` answer with
            // its own `Content-Type`) replaces the default one, as `couch_httpd:maybe_add_default_headers` merges.
            if field == .cacheControl || field == .contentType {
                headers[field] = value
            } else {
                headers.append(HTTPField(name: field, value: value))
            }
        }
        return headers
    }
}
