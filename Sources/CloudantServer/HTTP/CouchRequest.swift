internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird

/// One request as the CouchDB routes see it: decoded path segments, query parameters, headers, the
/// collected body and the authenticated user.
struct CouchRequest: Sendable {
    /// The HTTP method.
    var method: HTTPRequest.Method
    /// The path split at `/`, each segment percent-decoded (so `a%2Fb` stays one segment, `a/b`).
    var segments: [String]
    /// The query parameters, percent-decoded (`+` is a space, as in CouchDB's query-string parser).
    var query: QueryParameters
    /// The request headers.
    var headers: HTTPFields
    /// The body bytes (empty when there was none).
    var body: [UInt8]
    /// Who is asking.
    var user: UserContext
    /// The host (and port) the client addressed: HTTP/1.1's `Host`.
    var authority: String?

    /// The header's value, if present.
    func header(_ name: HTTPField.Name) -> String? { headers[name] }

    /// Whether the client sent a JSON content type, by CouchDB's test (`couch_httpd:validate_ctype`): the
    /// media type before any `;` parameters is exactly `application/json`.
    var hasJSONContentType: Bool {
        guard let value = header(.contentType) else { return false }
        return value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first == "application/json"
    }

    /// The body parsed as JSON.
    /// - Throws: ``HTTPFailure`` `400 bad_request` "invalid UTF-8 JSON", as CouchDB answers malformed bodies.
    func jsonBody() throws -> JSONValue {
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw HTTPFailure.badRequest("invalid UTF-8 JSON")
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

    /// Requires `Content-Type: application/json`, as CouchDB does for its JSON POST endpoints (D-45).
    /// - Throws: ``HTTPFailure`` `415 bad_content_type`.
    func requireJSONContentType() throws {
        guard hasJSONContentType else {
            throw HTTPFailure(status: 415, error: "bad_content_type", reason: "Content-Type must be application/json")
        }
    }

    /// Splits a raw request target (`/db/doc?rev=1-a`) into decoded segments and query parameters.
    static func parseTarget(_ target: String) -> (segments: [String], query: QueryParameters) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? "/"
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: true).map {
            PercentDecoding.decode($0, plusIsSpace: false)
        }
        let query = QueryParameters(rawQuery: parts.count > 1 ? String(parts[1]) : "")
        return (segments, query)
    }
}

/// Percent-decoding for request targets.
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` when `plusIsSpace`); invalid escapes are kept as written.
    static func decode(_ text: some StringProtocol, plusIsSpace: Bool) -> String {
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
        return String(decoding: bytes, as: UTF8.self)
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
