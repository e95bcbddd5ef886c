internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|HEAD|PUT|DELETE /{db}/{docid}/{attname}` (spec D-44), as CouchDB's `db_attachment_req`.
    func attachment(_ request: CouchRequest, database: String, id: String, name: String) async throws -> Response {
        switch request.method {
        case .get, .head: return try await readAttachment(request, database: database, id: id, name: name)
        case .put, .delete: return try await writeAttachment(request, database: database, id: id, name: name)
        default: throw unsupported("DELETE,GET,HEAD,PUT")
        }
    }

    /// The attachment's bytes: encoded as stored when the client accepts gzip (`Content-Encoding: gzip`),
    /// decoded otherwise; byte ranges for attachments stored unencoded (`Accept-Ranges: bytes`).
    private func readAttachment(_ request: CouchRequest, database: String, id: String, name: String) async throws
        -> Response
    {
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let attachment = try await store.attachment(documentID: id, name: name, rev: request.query["rev"])
        let info = attachment.info
        // CouchDB's attachment ETag is the digest's base64, without "md5-".
        let etag = "\"" + (info.digest.hasPrefix("md5-") ? String(info.digest.dropFirst(4)) : info.digest) + "\""
        let sendEncoded = info.encoding != .identity && ContentCoding.accepts("gzip", in: request.header(.acceptEncoding))
        var headers = [("ETag", etag)]
        if sendEncoded { headers.append(("Content-Encoding", info.encoding.rawValue)) }
        headers.append(("Accept-Ranges", info.encoding == .identity ? "bytes" : "none"))
        if request.header(.ifNoneMatch) == etag { return CouchResponse.headOnly(status: 304, headers: headers) }
        let body = sendEncoded ? attachment.storedData : try attachment.data()
        if request.method == .head {
            var response = CouchResponse.headOnly(contentType: info.contentType, headers: headers)
            response.headers[.contentLength] = String(body.count)
            return response
        }
        if info.encoding == .identity, let ranges = try ByteRanges.parse(request.header(.range), length: body.count) {
            return ByteRanges.response(ranges, of: body, contentType: info.contentType, headers: headers)
        }
        return CouchResponse.raw(body, contentType: info.contentType, headers: headers)
    }

    /// `PUT` adds or replaces the attachment in a new revision (the request body is its content, gzip when
    /// sent with `Content-Encoding: gzip`); `DELETE` removes it. Both edit the revision named by `rev` or
    /// `If-Match`; a revision the document does not have is a `409 conflict`, as in CouchDB.
    private func writeAttachment(_ request: CouchRequest, database: String, id: String, name: String) async throws
        -> Response
    {
        try IncomingAttachment.validate(name: name, documentID: id)
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
        let rev = request.query["rev"] ?? request.header(.ifMatch).map(Self.unquote)
        var document: JSONObject = ["_id": .string(id)]
        if let rev {
            do {
                document = try await store.document(id: id, options: ReadOptions(rev: rev))
            } catch let error as CloudantError where error.code == .notFound {
                throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id, revision: rev))
            }
        } else if request.method == .delete {
            _ = try await store.attachment(documentID: id, name: name)  // 404 for a missing document or attachment.
        }
        var incoming = try IncomingDocument(document)
        var attachments = incoming.attachments ?? [:]
        if request.method == .delete {
            guard attachments.removeValue(forKey: name) != nil else {
                throw HTTPFailure.notFound("Document is missing attachment")
            }
        } else {
            attachments[name] = .data(try uploadedContent(request))
        }
        incoming.attachments = attachments
        let result = try await store.put(incoming)
        guard request.method == .put else { return CouchResponse.json(result.json) }
        return CouchResponse.json(
            result.json, status: 201, headers: [("Location", request.location(database: database, id: id, attachment: name))])
    }

    /// The body of an attachment `PUT`, in the encoding it was sent.
    /// - Throws: ``HTTPFailure`` `415 bad_content_type` for an encoding other than gzip and identity, as
    ///   CouchDB; `400` for gzip data that does not decode within the body limit.
    private func uploadedContent(_ request: CouchRequest) throws -> IncomingAttachmentData {
        let contentType = request.header(.contentType) ?? "application/octet-stream"
        let coding = (request.header(.contentEncoding) ?? "identity").trimmingCharacters(in: .whitespaces).lowercased()
        switch coding {
        case "identity":
            return IncomingAttachmentData(contentType: contentType, bytes: request.body)
        case "gzip":
            // Kept as sent; decoding it once here learns its length (and refuses damaged data at once).
            let decoded: [UInt8]
            do {
                decoded = try Gzip.decode(request.body, limit: configuration.maxRequestBodySize)
            } catch {
                throw HTTPFailure.badRequest("The attachment is not valid gzip data: \(error.reason).")
            }
            return IncomingAttachmentData(contentType: contentType, bytes: request.body, encoding: .gzip, length: decoded.count)
        default:
            throw HTTPFailure(status: 415, error: "bad_content_type", reason: "Only gzip and identity content-encodings are supported")
        }
    }
}
