internal import CloudantCore

/// CouchDB's `multipart/related` document form (spec D-41, D-42): a JSON part whose attachments say
/// `"follows": true`, then one part of raw bytes per such attachment, in the order the JSON lists them.
/// Stubs and inline attachments need no part.
///
/// Reading gives the document split into metadata and body with each `follows` attachment's part as its
/// content, in the encoding it was sent in: CouchDB's replicator sends compressible types gzip-encoded,
/// as CouchDB stores them, and the store keeps those bytes and their digest as they are.
enum MultipartRelated {
    /// The document of a `multipart/related` upload, with each `follows` attachment's part as its content.
    ///
    /// A part's `digest` (and a gzip part's decoding to its `length`) is checked by the store before
    /// anything is written.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a malformed body, a missing or surplus part, or a
    ///   part whose size is not the attachment's `length` (`encoded_length` for a gzip part: CouchDB's
    ///   "attachment longer/shorter than expected"); `413 too_large` for an attachment that would decode
    ///   beyond `maxDecodedSize`; `415 bad_content_type` for an encoding other than gzip and identity;
    ///   ``CloudantError`` for a document the store would refuse as JSON.
    ///
    /// - Parameter prepare: Changes the JSON part (without its `follows` attachments) before it is parsed:
    ///   the URL's id and rev, `_users` password hashing.
    static func document(
        from body: [UInt8], contentType: String?, maxDecodedSize: Int = .max,
        prepare: (JSONObject) throws -> JSONObject = { $0 }
    ) throws -> IncomingDocument {
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
        var following: [(String, IncomingAttachmentData)] = []
        for name in attachments.keys {
            guard case .object(let attachment) = attachments[name], attachment["follows"] == true else { continue }
            guard let part = remaining.popFirst() else {
                throw HTTPFailure.badRequest("Attachment \(name) is marked follows but the body has no part for it.")
            }
            following.append((name, try content(attachment, name: name, part: part, maxDecodedSize: maxDecodedSize)))
            _ = attachments.removeValue(forKey: name)
        }
        guard remaining.isEmpty else {
            throw HTTPFailure.badRequest(
                "The body has \(remaining.count) more part(s) than attachments marked follows in its JSON part.")
        }
        if document["_attachments"] != nil { document["_attachments"] = .object(attachments) }
        var incoming = try IncomingDocument(try prepare(document))
        for (name, data) in following {
            try IncomingAttachment.validate(name: name, documentID: incoming.id)
            incoming.attachments = incoming.attachments ?? [:]
            incoming.attachments?[name] = .data(data)
        }
        return incoming
    }

    /// One `follows` attachment's part as content, its size checked against what the JSON says.
    private static func content(_ attachment: JSONObject, name: String, part: MultipartPart, maxDecodedSize: Int) throws
        -> IncomingAttachmentData
    {
        let length = attachment["length"]?.numberValue?.int64Value.map { Int($0) }
        let encoding = (attachment["encoding"]?.stringValue ?? part.header("Content-Encoding") ?? "identity").lowercased()
        let contentType =
            attachment["content_type"]?.stringValue ?? part.header("Content-Type") ?? "application/octet-stream"
        var data = IncomingAttachmentData(
            contentType: contentType, bytes: part.body, length: length,
            revpos: attachment["revpos"]?.numberValue?.int64Value.map { Int($0) },
            digest: attachment["digest"]?.stringValue, isMultipartPart: true)
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
            data.encoding = .gzip
        default:
            throw HTTPFailure(
                status: 415, error: "bad_content_type",
                reason: "Attachment \(name) is sent \(encoding)-encoded; send attachment parts unencoded or gzip-encoded.")
        }
        return data
    }

    /// CouchDB's own reasons for a size mismatch, so a replicator's log reads the same against either server.
    private static func checkSize(_ size: Int, expected: Int?) throws {
        guard let expected else { return }
        if size > expected { throw HTTPFailure.badRequest("attachment longer than expected") }
        if size < expected { throw HTTPFailure.badRequest("attachment shorter than expected") }
    }
}
