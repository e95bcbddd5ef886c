internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|HEAD|PUT|DELETE /{db}/{docid}/{attname}`, as CouchDB's `db_attachment_req`.
    func attachment(_ request: CouchRequest, database: String, id: String, name: String) async throws -> Response {
        switch request.method {
        case .get, .head: return try await readAttachment(request, database: database, id: id, name: name)
        case .put: return try await uploadAttachment(request, database: database, id: id, name: name)
        case .delete: return try await deleteAttachment(request, database: database, id: id, name: name)
        default: throw unsupported("DELETE,GET,HEAD,PUT")
        }
    }

    /// The attachment's bytes: encoded as stored when the client accepts gzip (`Content-Encoding: gzip`),
    /// decoded otherwise; byte ranges for attachments stored unencoded (`Accept-Ranges: bytes`). The body
    /// streams from the store in pieces, so an attachment of any size is sent in bounded memory. Every answer
    /// carries CouchDB's `Content-Security-Policy: sandbox`, `nosniff`, and active types are downloads
    /// (``AttachmentSafety``).
    private func readAttachment(_ request: CouchRequest, database: String, id: String, name: String) async throws
        -> Response
    {
        let store = try await authorizedStore(database, for: request.user, access: .member)
        try await readAccess(of: store, for: request.user).requireVisible(id: id, in: store)
        let attachment = try await store.attachmentContent(documentID: id, name: name, rev: request.query["rev"])
        let info = attachment.info
        // CouchDB's attachment ETag is the digest's base64, without "md5-".
        let etag = "\"" + (info.digest.hasPrefix("md5-") ? String(info.digest.dropFirst(4)) : info.digest) + "\""
        let sendEncoded = info.encoding != .identity && ContentCoding.accepts("gzip", in: request.header(.acceptEncoding))
        var headers = [("ETag", etag)]
        if sendEncoded { headers.append(("Content-Encoding", info.encoding.rawValue)) }
        headers.append(("Accept-Ranges", info.encoding == .identity ? "bytes" : "none"))
        // Uploaded bytes on the dashboard's origin: never a page that runs (see ``AttachmentSafety``).
        headers += AttachmentSafety.headers(contentType: info.contentType, name: name)
        if request.ifNoneMatch(etag) { return CouchResponse.notModified(headers: [("ETag", etag)]) }
        let length = sendEncoded ? info.encodedLength : info.length
        // A `HEAD` is answered as the `GET` is, ranges included, without the body (CouchDB serves it as the GET).
        if info.encoding == .identity, let ranges = try ByteRanges.parse(request.header(.range), length: length) {
            let response = ByteRanges.response(ranges, of: attachment, contentType: info.contentType, headers: headers)
            return request.method == .head ? CouchResponse.head(of: response) : response
        }
        if request.method == .head {
            var response = CouchResponse.headOnly(contentType: info.contentType, headers: headers)
            response.headers[.contentLength] = String(length)
            return response
        }
        let pieces = sendEncoded ? attachment.storedBytes() : attachment.contentBytes()
        return CouchResponse.streamed(pieces, length: length, contentType: info.contentType, headers: headers)
    }

    /// `PUT` adds or replaces the attachment in a new revision of the revision named by `rev` or `If-Match`
    /// (a revision the document does not have is `409 not_found` "missing_rev", as in CouchDB). The body is the content
    /// (a gzip member when sent with `Content-Encoding: gzip`, kept as sent); it streams into the store,
    /// digested on the way, up to ``ServerConfiguration/maxAttachmentSize``. A `Content-MD5` header is not
    /// read, as CouchDB 3.5's `db_attachment_req/4` does not read it.
    /// - Throws: ``HTTPFailure`` `415 bad_content_type` for an encoding other than gzip and identity, as
    ///   CouchDB; the store's errors (`400` for damaged gzip, `413 attachment_too_large`).
    private func uploadAttachment(_ request: CouchRequest, database: String, id: String, name: String) async throws
        -> Response
    {
        let (store, rev) = try await attachmentWrite(request, database: database, id: id, name: name)
        if let rev { _ = try await Self.revision(rev, of: id, in: store) }
        let coding = (request.header(.contentEncoding) ?? "identity").trimmingCharacters(in: .whitespaces).lowercased()
        let encoding: AttachmentEncoding
        switch coding {
        case "identity": encoding = .identity
        case "gzip": encoding = .gzip
        default:
            throw HTTPFailure(status: 415, error: "bad_content_type", reason: "Only gzip and identity content-encodings are supported")
        }
        // `202` when `w` asks for more copies than a single node keeps, as for documents (read before the write,
        // so a `w` that is not a number writes nothing).
        let accepted = try Self.writeQuorumUnmet(request)
        let result = try await store.putAttachment(
            name, documentID: id, rev: rev, contentType: request.header(.contentType) ?? "application/octet-stream",
            encoding: encoding, maxLength: configuration.maxAttachmentSize,
            content: request.bodyPieces)
        return CouchResponse.json(
            result.json, status: accepted ? 202 : 201,
            headers: [("Location", request.location(database: database, id: id, attachment: name))])
    }

    /// `DELETE` removes the attachment in a new revision of the revision named by `rev` or `If-Match`.
    private func deleteAttachment(_ request: CouchRequest, database: String, id: String, name: String) async throws
        -> Response
    {
        let (store, rev) = try await attachmentWrite(request, database: database, id: id, name: name)
        // `chttpd_db:db_attachment_req/4`: the document and the attachment must exist (404), and without a
        // revision the edit is of no revision, which conflicts with the document that is there (409); a
        // revision the document does not have is `{{not_found, missing}, Rev}`, 409 `missing_rev`.
        guard let rev else {
            _ = try await store.attachmentContent(documentID: id, name: name)
            throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id))
        }
        var incoming = try IncomingDocument(try await Self.revision(rev, of: id, in: store))
        var attachments = incoming.attachments ?? [:]
        guard attachments.removeValue(forKey: name) != nil else { throw HTTPFailure.notFound("Document is missing attachment") }
        incoming.attachments = attachments
        return CouchResponse.json(try await store.put(incoming).json)
    }

    /// What a `PUT` or `DELETE` of an attachment checks before it edits: the name, the user's write access to
    /// the database and the document, and the revision it edits (`rev`, else `If-Match`; `nil` for none).
    ///
    /// With per-document access, an attachment changes only on a document the user sees (the new revision
    /// keeps its list); a restricted user cannot create a document this way, since it would have no list. A
    /// hidden document is answered as a missing one: `409 conflict` when a revision is named (as for any
    /// revision the document does not have), else `403` (create the document first).
    private func attachmentWrite(_ request: CouchRequest, database: String, id: String, name: String) async throws
        -> (store: DocumentStore, rev: String?)
    {
        // The database is found (or not: 404) and the user's access checked before the name is (`chttpd_db`
        // resolves the database before `db_attachment_req/4` runs); `rev` and `If-Match` must agree
        // (`extract_header_rev/2`).
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
        try IncomingAttachment.validate(name: name, documentID: id)
        let rev = try Self.revision(body: nil, request: request)
        let access = try await readAccess(of: store, for: request.user)
        guard access.isRestricted, !(try await access.allowsDocument(id: id, in: store)) else { return (store, rev) }
        if rev != nil { throw DocumentAccess.conflict }
        throw HTTPFailure.forbidden("Create the document, with its access list, before adding attachments.")
    }

    /// The revision `rev` of document `id` that an attachment `PUT` or `DELETE` edits.
    /// - Throws: ``HTTPFailure`` `409 not_found` "missing_rev" when the document lacks it (`fabric:open_revs/4`
    ///   answers `{{not_found, missing}, Rev}`, which `chttpd:error_info/1` makes that).
    private static func revision(_ rev: String, of id: String, in store: DocumentStore) async throws -> JSONObject {
        do {
            return try await store.document(id: id, options: ReadOptions(rev: rev))
        } catch let error as CloudantError where error.code == .notFound {
            throw HTTPFailure(status: 409, error: "not_found", reason: "missing_rev")
        }
    }

}
