internal import CloudantCore
internal import CloudantStore

/// CouchDB's `multipart/related` document form: a JSON part whose attachments say
/// `"follows": true`, then one part of raw bytes per such attachment, in the order the JSON lists them.
/// Stubs and inline attachments need no part.
///
/// Reading gives the document split into metadata and body with each `follows` attachment's part as its
/// content, in the encoding it was sent in: CouchDB's replicator sends compressible types gzip-encoded,
/// as CouchDB stores them, and the store keeps those bytes and their digest as they are.
enum MultipartRelated {
    /// The document of a `multipart/related` upload read as it streams in: the JSON part (at most
    /// `maxJSONSize` bytes), then each `follows` attachment's part staged into `store` in pieces (at most
    /// `maxAttachmentSize` bytes each), so attachments of any size arrive in bounded memory.
    ///
    /// A part's `digest` (and a gzip part's decoding to its `length`) is checked while it is staged.
    /// Returns the document (its `follows` attachments as `IncomingAttachment.staged(_:)`) and the staged
    /// files, which the caller discards if the write does not take them.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a malformed body, a missing or surplus part, or a
    ///   part whose size is not the attachment's `length` (`encoded_length` for a gzip part: CouchDB's
    ///   "attachment longer/shorter than expected"); `413` past the limits; `415 bad_content_type` for an
    ///   encoding other than gzip and identity; `CloudantError` for what the store refuses. Nothing
    ///   staged is left behind when it throws.
    ///
    /// - Parameter prepare: Changes the JSON part (without its `follows` attachments) before it is parsed:
    ///   the URL's id and rev, `_users` password hashing.
    static func document(
        streaming body: BodyPieces, contentType: String?, into store: DocumentStore, maxJSONSize: Int,
        maxAttachmentSize: Int, prepare: (JSONObject) async throws -> JSONObject = { $0 }
    ) async throws -> (IncomingDocument, [StagedAttachment]) {
        let boundary: String
        do {
            boundary = try MultipartParser.boundary(in: contentType)
        } catch {
            throw HTTPFailure(error)
        }
        let reader = try MultipartStreamReader(body: body, boundary: boundary)
        var json: [UInt8] = []
        if let headers = try await reader.nextPart() {
            // `couch_httpd_multipart:mp_parse_doc/2`: the document's part must say it is JSON.
            guard MultipartPart(headers: headers, body: []).contentType?.essence == "application/json" else {
                throw HTTPFailure(status: 415, error: "bad_content_type", reason: "Content-Type must be application/json")
            }
            json = try await reader.collectBody(limit: maxJSONSize)
        }
        guard case .object(var document) = try? JSONValue(parsing: json) else {
            throw HTTPFailure.badRequest("The first part of a multipart/related body must be a JSON document.")
        }
        guard case .object(var attachments) = document["_attachments"] ?? .object(JSONObject()) else {
            throw HTTPFailure.badRequest("_attachments must be a JSON object.")
        }
        let attachmentOrder = attachments.keys
        let documentID = document["_id"]?.stringValue ?? ""
        let generation = document["_rev"]?.stringValue.flatMap { Int($0.prefix { $0 != "-" }) } ?? 1
        var staged: [(String, StagedAttachment)] = []
        do {
            for name in attachments.keys {
                guard case .object(let attachment) = attachments[name], attachment["follows"] == true else { continue }
                guard try await reader.nextPart() != nil else {
                    throw HTTPFailure.badRequest("Attachment \(name) is marked follows but the body has no part for it.")
                }
                let declared = try Declared(attachment, name: name, maxAttachmentSize: maxAttachmentSize)
                let file = try await store.stageAttachment(
                    name, documentID: documentID, contentType: declared.contentType, encoding: declared.encoding,
                    length: declared.encoding == .gzip ? declared.length : nil, digest: attachment["digest"]?.stringValue,
                    maxLength: maxAttachmentSize, content: reader.partPieces)
                staged.append((name, file.withRevpos(attachment["revpos"]?.numberValue?.int64Value.map { Int($0) } ?? generation)))
                if declared.encoding == .gzip {
                    try checkSize(file.info.encodedLength, expected: declared.encodedLength)
                } else {
                    try checkSize(file.info.length, expected: declared.length)
                }
                _ = attachments.removeValue(forKey: name)
            }
            if try await reader.nextPart() != nil {
                throw HTTPFailure.badRequest("The body has more parts than attachments marked follows in its JSON part.")
            }
            if document["_attachments"] != nil { document["_attachments"] = .object(attachments) }
            let writtenOrder = document["_attachments"] == nil ? [] : attachmentOrder
            var incoming = try IncomingDocument(try await prepare(document))
            for (name, file) in staged {
                try IncomingAttachment.validate(name: name, documentID: incoming.id)
                incoming.attachments = incoming.attachments ?? [:]
                incoming.attachments?[name] = .staged(file)
            }
            // The parts were taken out of the JSON; the order is the one the JSON part wrote.
            if !writtenOrder.isEmpty { incoming.attachmentOrder = writtenOrder }
            return (incoming, staged.map(\.1))
        } catch {
            for (_, file) in staged { store.discardStagedAttachment(file) }
            throw error
        }
    }

    /// What a `follows` attachment's JSON says about its part.
    private struct Declared {
        var contentType: String
        var encoding: AttachmentEncoding
        var length: Int?
        var encodedLength: Int?

        init(_ attachment: JSONObject, name: String, maxAttachmentSize: Int) throws {
            contentType = attachment["content_type"]?.stringValue ?? "application/octet-stream"
            length = attachment["length"]?.numberValue?.int64Value.map { Int($0) }
            encodedLength = attachment["encoded_length"]?.numberValue?.int64Value.map { Int($0) }
            switch (attachment["encoding"]?.stringValue ?? "identity").lowercased() {
            case "identity": encoding = .identity
            case "gzip":
                // CouchDB's replicator sends compressible types as CouchDB stores them.
                encoding = .gzip
                guard let length else {
                    throw HTTPFailure.badRequest("Attachment \(name) is gzip-encoded but gives no decoded length.")
                }
                guard length <= maxAttachmentSize else { throw HTTPFailure.tooLarge }
            case let other:
                throw HTTPFailure(
                    status: 415, error: "bad_content_type",
                    reason: "Attachment \(name) is sent \(other)-encoded; send attachment parts unencoded or gzip-encoded.")
            }
        }
    }

    /// CouchDB's own reasons for a size mismatch, so a replicator's log reads the same against either server.
    private static func checkSize(_ size: Int, expected: Int?) throws {
        guard let expected else { return }
        if size > expected { throw HTTPFailure.badRequest("attachment longer than expected") }
        if size < expected { throw HTTPFailure.badRequest("attachment shorter than expected") }
    }
}
