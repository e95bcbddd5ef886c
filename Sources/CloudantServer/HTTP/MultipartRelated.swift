internal import CloudantCore

/// CouchDB's `multipart/related` document form (spec D-41, D-42): a JSON part whose attachments say
/// `"follows": true`, then one part of raw bytes per such attachment, in the order the JSON lists them.
/// Stubs and inline attachments need no part.
///
/// Reading turns each `follows` attachment into inline base64 `data`, so an upload goes through the same
/// write path as a JSON `PUT` (interactive or `new_edits=false`) and the store needs no second way in.
enum MultipartRelated {
    /// The document of a `multipart/related` upload, with each `follows` attachment's bytes inline.
    ///
    /// A replicated attachment keeps the `digest` and `revpos` its peer sent (the store checks neither
    /// against the bytes, as CouchDB digests compressible types after gzip).
    ///
    /// A gzip-encoded part (`"encoding": "gzip"`, as CouchDB's replicator sends compressible types) is
    /// decoded and checked against `encoded_length`, `length` and its own CRC; it may decode to at most
    /// `maxDecodedSize` bytes.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a malformed body, a missing or surplus part, damaged
    ///   gzip data, or a part whose size is not the attachment's `length` (CouchDB's "attachment
    ///   longer/shorter than expected"); `413 too_large` for an attachment that decodes beyond
    ///   `maxDecodedSize`; `415 bad_content_type` for any other encoding.
    static func document(from body: [UInt8], contentType: String?, maxDecodedSize: Int = .max) throws -> JSONObject {
        let parts: [MultipartPart]
        do {
            parts = try MultipartParser.parts(of: body, boundary: MultipartParser.boundary(in: contentType))
        } catch {
            throw HTTPFailure(error)
        }
        guard let first = parts.first, case .object(var document) = try? JSONValue(parsing: first.body) else {
            throw HTTPFailure.badRequest("The first part of a multipart/related body must be a JSON document.")
        }
        guard case .object(var attachments) = document["_attachments"] ?? .object(JSONObject()) else {
            throw HTTPFailure.badRequest("_attachments must be a JSON object.")
        }
        var remaining = parts.dropFirst()
        for name in attachments.keys {
            guard case .object(let attachment) = attachments[name], attachment["follows"] == true else { continue }
            guard let part = remaining.popFirst() else {
                throw HTTPFailure.badRequest("Attachment \(name) is marked follows but the body has no part for it.")
            }
            attachments[name] = .object(try inline(attachment, name: name, part: part, maxDecodedSize: maxDecodedSize))
        }
        guard remaining.isEmpty else {
            throw HTTPFailure.badRequest(
                "The body has \(remaining.count) more part(s) than attachments marked follows in its JSON part.")
        }
        if !attachments.isEmpty { document["_attachments"] = .object(attachments) }
        return document
    }

    /// One `follows` attachment with its part's bytes, decoded, as base64 `data`.
    private static func inline(_ attachment: JSONObject, name: String, part: MultipartPart, maxDecodedSize: Int) throws
        -> JSONObject
    {
        let length = attachment["length"]?.numberValue?.int64Value.map { Int($0) }
        let encoding = (attachment["encoding"]?.stringValue ?? part.header("Content-Encoding") ?? "identity").lowercased()
        var bytes = part.body
        switch encoding {
        case "identity":
            try checkSize(part.body.count, expected: length)
        case "gzip":
            // CouchDB's replicator sends compressible types as CouchDB stores them (spec O-1).
            try checkSize(part.body.count, expected: attachment["encoded_length"]?.numberValue?.int64Value.map { Int($0) })
            guard let length else {
                throw HTTPFailure.badRequest("Attachment \(name) is gzip-encoded but gives no decoded length.")
            }
            guard length <= maxDecodedSize else { throw HTTPFailure.tooLarge }
            do {
                bytes = try Gzip.decode(part.body, limit: length)
            } catch {
                throw HTTPFailure.badRequest("Attachment \(name) is not valid gzip data: \(error.reason).")
            }
            try checkSize(bytes.count, expected: length)
        default:
            throw HTTPFailure(
                status: 415, error: "bad_content_type",
                reason: "Attachment \(name) is sent \(encoding)-encoded; send attachment parts unencoded or gzip-encoded.")
        }
        var inline = attachment
        for key in ["follows", "length", "encoding", "encoded_length", "stub"] { _ = inline.removeValue(forKey: key) }
        if inline["content_type"] == nil, let type = part.header("Content-Type") { inline["content_type"] = .string(type) }
        inline["data"] = .string(Base64.encode(bytes))
        return inline
    }

    /// CouchDB's own reasons for a size mismatch, so a replicator's log reads the same against either server.
    private static func checkSize(_ size: Int, expected: Int?) throws {
        guard let expected else { return }
        if size > expected { throw HTTPFailure.badRequest("attachment longer than expected") }
        if size < expected { throw HTTPFailure.badRequest("attachment shorter than expected") }
    }
}
