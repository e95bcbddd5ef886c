internal import CloudantCore
internal import Hummingbird

/// What a show, list or update function answers with, as CouchDB reads it (`chttpd_external:
/// parse_external_response`): `code`, `headers`, and a body as `body` (text), `base64` (bytes) or `json`,
/// each with its default content type; any other member is an error.
struct ExternalResponse {
    var code = 200
    var body: [UInt8] = []
    var contentType = "application/json"
    var headers: [(String, String)] = []
    var json: JSONValue?

    /// Reads the members in order, as CouchDB folds over them (a later `code` wins).
    /// - Throws: ``HTTPFailure`` `500 external_response_error` for a member CouchDB does not know.
    init(_ object: JSONObject) throws {
        for (key, value) in object.members {
            switch (key, value) {
            case ("", _): continue
            case ("code", .number(let number)): code = Int(number.int64Value ?? 200)
            // Only `{"stop": true}` is CouchDB's; any other value is an unknown member.
            case ("stop", .bool(true)): continue
            case ("json", _):
                json = value
                contentType = "application/json"
            case ("body", _):
                body = Array((value.stringValue ?? value.jsonString()).utf8)
                contentType = "text/html; charset=utf-8"
            case ("base64", _):
                body = Base64.decode(value.stringValue ?? "") ?? []
                contentType = "application/binary"
            case ("headers", .object(let members)):
                headers = members.members.map { ($0.key, $0.value.stringValue ?? $0.value.jsonString()) }
            default:
                throw HTTPFailure(
                    status: 500, error: "external_response_error",
                    reason: "Invalid data from external server: {\(ErlangTerm.binary(key)),\(ErlangTerm.format(value, printable: true))}")
            }
        }
    }

    /// Replaces or adds headers, as CouchDB's `apply_headers` does to set `ETag` and `Vary`.
    mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.0 == name }
        headers.insert((name, value), at: 0)
    }

    /// The HTTP response, as `chttpd_external:send_external_response` sends it: the default content type
    /// unless a header sets one. A `json` answer is sent as CouchDB's JSON responses are, with
    /// `Cache-Control: must-revalidate` unless the function set its own, and the function's content type
    /// over `application/json`; a text or binary body gets exactly the function's headers, below CouchDB's
    /// `Content-Security-Policy: sandbox` for shows and lists.
    func response() -> Response {
        var all = headers
        if !all.contains(where: { $0.0.lowercased() == "content-type" }) { all.insert(("Content-Type", contentType), at: 0) }
        if let json {
            return CouchResponse.json(json, status: code, headers: all)
        }
        return CouchResponse.exact(body, status: code, headers: [("Content-Security-Policy", "sandbox")] + all)
    }
}
