internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

/// One request as the CouchDB routes see it: decoded path segments, query parameters, headers, the
/// collected body and the authenticated user.
struct CouchRequest: Sendable {
    /// The HTTP method.
    var method: HTTPRequest.Method
    /// The path split at `/`, each segment percent-decoded (so `a%2Fb` stays one segment, `a/b`).
    var segments: [String]
    /// The request target as sent (path and query, still percent-encoded): a design function's `raw_path`.
    var rawTarget = ""
    /// The query parameters, percent-decoded (`+` is a space, as in CouchDB's query-string parser).
    var query: QueryParameters
    /// The request headers.
    var headers: HTTPFields
    /// The body bytes (empty when there was none, or when it is streamed: see ``bodyStream``).
    var body: [UInt8]
    /// The body still to be read, for requests that stream it (attachment uploads) instead of collecting it.
    var bodyStream: RequestBody? = nil
    /// Who is asking.
    var user: UserContext
    /// The cookie session that authenticated the request, if one did.
    var session: SessionRegistry.Session? = nil
    /// The handler that authenticated the request, if one did (`/_session`'s `info.authenticated`).
    var authenticatedBy: AuthenticationHandler? = nil
    /// A re-issued session cookie to send back (the session is past a tenth of its timeout).
    var refreshedCookie: String? = nil
    /// The host (and port) the client addressed: HTTP/1.1's `Host`.
    var authority: String?
    /// The connection the request came on (`nil` when the endpoint is called directly).
    var connection: ClientConnection? = nil

    /// The largest body accepted, also once a `Content-Encoding: gzip` JSON body is inflated.
    var bodyLimit = Int.max

    /// The bytes of the partition in `/{db}/_partition/{partition}…` when they are not UTF-8 once
    /// percent-decoded (its segment then holds U+FFFD): the partition handler refuses them in CouchDB's order.
    var partitionNotUTF8: [UInt8]? = nil
    /// The headers a proxy names the client's host and scheme in (`chttpd/x_forwarded_host`,
    /// `x_forwarded_ssl`, `x_forwarded_proto`), for the URIs the answer writes.
    var forwardedHeaders = ForwardedHeaders()

    /// The client's IP address, when known (login throttling).
    var clientAddress: String? { connection?.address }

    /// The header's value, if present.
    func header(_ name: HTTPField.Name) -> String? { headers[name] }

    /// Whether the client sent a JSON content type, by CouchDB's test (`couch_httpd:validate_ctype`): the
    /// media type before any `;` parameters is exactly `application/json`.
    var hasJSONContentType: Bool {
        guard let value = header(.contentType) else { return false }
        return value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first == "application/json"
    }

    /// Whether `If-None-Match` names `etag`, as `couch_httpd:etag_match/2` reads it: a list separated by commas
    /// and spaces, each entry with or without a weak `W/` prefix.
    func ifNoneMatch(_ etag: String) -> Bool {
        guard let value = header(.ifNoneMatch) else { return false }
        return value.split(whereSeparator: { $0 == "," || $0 == " " }).contains { entry in
            (entry.hasPrefix("W/") ? entry.dropFirst(2) : entry[...]) == etag
        }
    }

    /// The body parsed as JSON.
    /// - Throws: ``HTTPFailure`` `400 bad_request` "invalid UTF-8 JSON", as CouchDB answers malformed bodies.
    ///
    /// A `Content-Encoding: gzip` body is inflated first, as CouchDB's `chttpd:json_body/1` does (only JSON
    /// bodies: an attachment keeps its encoding).
    /// - Throws: also ``HTTPFailure`` `413`, `400` or `415` from ``decoded(_:encoding:limit:)``.
    func jsonBody() throws -> JSONValue {
        let bytes = try Self.decoded(body, encoding: header(.contentEncoding), limit: bodyLimit)
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw HTTPFailure.badRequest("invalid UTF-8 JSON")
        }
    }

    /// The body with its `Content-Encoding` undone, as CouchDB's `chttpd:maybe_decompress/2`: `gzip` is
    /// inflated — to at most `limit` bytes, so a small "gzip bomb" meets the same size limit as any body
    /// and never the memory — and `identity` is kept.
    /// - Throws: ``HTTPFailure`` `413 too_large` past `limit`, `400 bad_request` for damaged gzip data,
    ///   `415 bad_content_type` for any other encoding.
    static func decoded(_ body: [UInt8], encoding: String?, limit: Int) throws -> [UInt8] {
        let name = encoding?.trimmingCharacters(in: .whitespaces).lowercased() ?? "identity"
        switch name {
        case "identity", "":
            return body
        case "gzip":
            do {
                return try Gzip.decode(body, limit: limit)
            } catch let failure where failure.isOverLimit {
                throw HTTPFailure.tooLarge
            } catch {
                throw HTTPFailure.badRequest("Request body is not properly gzipped.")
            }
        default:
            throw HTTPFailure(
                status: 415, error: "bad_content_type", reason: "\(name) is not a supported content encoding.")
        }
    }


    /// The body as a JSON object.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for malformed JSON or a non-object.
    func jsonObjectBody() throws -> JSONObject {
        guard case .object(let object) = try jsonBody() else {
            throw HTTPFailure.badRequest("Request body must be a JSON object")
        }
        return object
    }

    /// The body as a document to write.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for malformed JSON, or "Document must be a JSON object"
    ///   for another JSON value, as CouchDB words it.
    func documentBody() throws -> JSONObject {
        guard case .object(let object) = try jsonBody() else {
            throw HTTPFailure.badRequest("Document must be a JSON object")
        }
        return object
    }

    /// Requires `Content-Type: application/json`, as CouchDB does for its JSON POST endpoints.
    /// - Throws: ``HTTPFailure`` `415 bad_content_type`.
    func requireJSONContentType() throws {
        guard hasJSONContentType else {
            throw HTTPFailure(status: 415, error: "bad_content_type", reason: "Content-Type must be application/json")
        }
    }

    /// Splits a raw request target (`/db/doc?rev=1-a`) into decoded segments and query parameters.
    ///
    /// A segment whose escapes decode to bytes that are not UTF-8 is not repaired into another name: its
    /// index and bytes are returned as `invalidSegment` (its text then holds U+FFFD) so the request can be
    /// refused. With `plusIsSpace` (CouchDB's `chttpd/decode_plus_to_space`, true unless set to false) a `+`
    /// in the path is a space, as `mochiweb_util:unquote/1` reads it; otherwise it stays a `+`
    /// (`unquote_path/1`). `%2B` is a `+` either way.
    static func parseTarget(
        _ target: String, plusIsSpace: Bool = true
    ) -> (segments: [String], query: QueryParameters, invalidSegment: (index: Int, bytes: [UInt8])?) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? "/"
        var invalidSegment: (index: Int, bytes: [UInt8])?
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: true).enumerated().map { index, raw in
            let bytes = PercentDecoding.decodeBytes(raw, plusIsSpace: plusIsSpace)
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            if invalidSegment == nil { invalidSegment = (index, bytes) }
            return String(decoding: bytes, as: UTF8.self)
        }
        let query = QueryParameters(rawQuery: parts.count > 1 ? String(parts[1]) : "")
        return (segments, query, invalidSegment)
    }

    /// Whether segment `index` is the partition of `/{db}/_partition/{partition}…`, which CouchDB checks in
    /// the partition handler (after the database, the method and its partitioning) rather than up front.
    static func isPartitionSegment(_ index: Int, of segments: [String]) -> Bool {
        index == 2 && segments.count > 2 && segments[1] == "_partition"
    }

    /// The failure for a path whose segment `index` is not UTF-8 once percent-decoded, with CouchDB's
    /// answers: a read finds nothing (404), a write of such a document id is an `illegal_docid` (checked
    /// by `DocumentID.decode(utf8:)`), an attachment name is a `bad_request`.
    static func invalidUTF8Failure(
        segments: [String], invalid: (index: Int, bytes: [UInt8]), method: HTTPRequest.Method
    ) -> any Error {
        let isRead = method == .get || method == .head
        let index = invalid.index
        if index == 0 { return isRead ? HTTPFailure.databaseNotFound : DatabaseRegistry.illegalName(segments[0]) }
        let idEnd = segments[1] == "_design" || segments[1] == "_local" ? 2 : 1
        if index > idEnd { return HTTPFailure.badRequest("Attachment name is not UTF-8 encoded") }
        if isRead { return HTTPFailure.notFound() }
        do {
            _ = try DocumentID.decode(utf8: invalid.bytes)
            return HTTPFailure.badRequest("Document id must be valid UTF-8")
        } catch {
            return error
        }
    }
}

/// Percent-decoding for request targets.
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` when `plusIsSpace`); invalid escapes are kept as written. Bytes
    /// that are not UTF-8 become U+FFFD; see ``decodeBytes(_:plusIsSpace:)`` to see them.
    static func decode(_ text: some StringProtocol, plusIsSpace: Bool) -> String {
        String(decoding: decodeBytes(text, plusIsSpace: plusIsSpace), as: UTF8.self)
    }

    /// The bytes `%XX` escapes (and `+` when `plusIsSpace`) decode to, whether or not they are UTF-8.
    static func decodeBytes(_ text: some StringProtocol, plusIsSpace: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else if plusIsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
