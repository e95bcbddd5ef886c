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
            case ("stop", _): continue
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
                    reason: "Invalid data from external server: {\(ErlangFormat.binary(key)),\(value.jsonString())}")
            }
        }
    }

    /// Replaces or adds headers, as CouchDB's `apply_headers` does to set `ETag` and `Vary`.
    mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.0 == name }
        headers.insert((name, value), at: 0)
    }

    /// The HTTP response: the default content type unless a header sets one; a text or binary body gets
    /// CouchDB's `Content-Security-Policy: sandbox` for shows and lists.
    func response() -> Response {
        var all = headers
        if !all.contains(where: { $0.0.lowercased() == "content-type" }) { all.insert(("Content-Type", contentType), at: 0) }
        let type = all.first { $0.0.lowercased() == "content-type" }?.1 ?? contentType
        let rest = all.filter { $0.0.lowercased() != "content-type" }
        if let json {
            return CouchResponse.json(json, status: code, headers: rest)
        }
        return CouchResponse.raw(body, status: code, contentType: type, headers: [("Content-Security-Policy", "sandbox")] + rest)
    }
}

/// Erlang's `~p` of a binary, for CouchDB's messages.
enum ErlangFormat {
    static func binary(_ text: String) -> String { "<<" + JSONValue.string(text).jsonString() + ">>" }
}
