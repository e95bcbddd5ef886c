internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

/// The MIME forms of documents that CouchDB's replicator uses for documents with
/// attachments: it fetches them with `open_revs` as `multipart/mixed` and uploads each one as a
/// `multipart/related` `PUT …?new_edits=false`, so attachment bytes travel raw instead of as base64.
extension CouchEndpoint {
    /// `PUT /{db}/{docid}[?new_edits=false]` with `Content-Type: multipart/related`: answered as
    /// a JSON `PUT` is, with the same access checks. The body streams in: the JSON part is held to the
    /// request body limit, each attachment part to ``ServerConfiguration/maxAttachmentSize`` and staged
    /// into the store in pieces, so a replicator can push attachments of any size.
    func putMultipartDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        let rev = request.query["rev"] ?? request.header(.ifMatch).map(Self.unquote)
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
        let (document, staged) = try await MultipartRelated.document(
            streaming: request.bodyPieces, contentType: request.header(.contentType), into: store,
            maxJSONSize: configuration.maxRequestBodySize, maxAttachmentSize: configuration.maxAttachmentSize
        ) { json in
            var json = json
            json["_id"] = .string(id)
            if let rev { json["_rev"] = .string(rev) }
            return try await self.prepareForDatabase(json, database, user: request.user, client: request.clientAddress)
        }
        // A staged file the write took has moved; discarding the rest removes what a refused write left.
        defer { for file in staged { store.discardStagedAttachment(file) } }
        return try await write(parsed: document, request: request, database: database, batchMode: false)
    }

    /// Attachments stored at least this long are read from the store while a multipart answer is sent,
    /// not held in memory with it.
    static let streamedAttachmentSize = 1 << 20

    /// The `open_revs` answer as `multipart/mixed`: one part per requested leaf, in the order
    /// of `results`. A leaf with attachment bytes to send is a nested `multipart/related` part, one without
    /// is an `application/json` part, and a missing revision is a JSON part flagged `error="true"`.
    static func openRevisionsMultipart(_ results: [OpenRevisionResult], store: DocumentStore) -> Response {
        let writer = MultipartWriter(boundary: MultipartWriter.randomBoundary())
        // One inner boundary serves every nested part: each is closed before the next outer delimiter.
        let inner = MultipartWriter.randomBoundary()
        var segments: [BodySegment] = []
        for (index, result) in results.enumerated() {
            switch result {
            case .ok(let document):
                let encoded = MultipartRelated.encode(document, boundary: inner)
                segments.append(.bytes(writer.partHead(headers: [("Content-Type", encoded.contentType)], isFirst: index == 0)))
                segments += encoded.segments
            case .missing(let rev):
                segments.append(.bytes(writer.partHead(headers: [("Content-Type", "application/json; error=\"true\"")], isFirst: index == 0)))
                segments.append(.bytes(JSONValue.object(["missing": .string(rev)]).jsonBytes()))
            }
        }
        segments.append(.bytes(results.isEmpty ? Array("--\(writer.boundary)--".utf8) : writer.closing()))
        return CouchResponse.segments(segments, from: store, contentType: writer.contentType("mixed"))
    }

    /// `_bulk_get`'s MIME answer as CouchDB's `bulk_get_ret_multipart/4` writes it: one part per revision (a
    /// nested `multipart/related` naming `X-Doc-Id` and `X-Rev-Id` when it carries attachment bytes, else the
    /// JSON document) and one `application/json; error="true"` part per missing revision or failed entry.
    /// Each part opens with a line break and the boundary, which CouchDB makes `--` followed by a UUID.
    static func bulkGetMultipart(_ results: [BulkGetResult], subtype: String, store: DocumentStore) -> Response {
        let boundary = "--" + MultipartWriter.randomBoundary()
        let writer = MultipartWriter(boundary: boundary)
        var segments: [BodySegment] = []
        func errorPart(_ error: JSONValue) {
            segments.append(.bytes(writer.partHead(headers: [("Content-Type", "application/json; error=\"true\"")], isFirst: false)))
            segments.append(.bytes(error.jsonBytes()))
        }
        for result in results {
            switch result {
            case .failure(_, let error):
                errorPart(error)
            case .revisions(let id, let revisions):
                for revision in revisions {
                    switch revision {
                    case .ok(let document):
                        let inner = "--" + MultipartWriter.randomBoundary()
                        let encoded = MultipartRelated.encode(document, boundary: inner)
                        var headers = [("Content-Type", "application/json")]
                        if encoded.contentType != "application/json" {
                            headers = [("X-Doc-Id", id)]
                            if let rev = document["_rev"]?.stringValue { headers.append(("X-Rev-Id", rev)) }
                            headers.append(("Content-Type", "multipart/related; boundary=\(inner)"))
                        }
                        segments.append(.bytes(writer.partHead(headers: headers, isFirst: false)))
                        segments += encoded.segments
                    case .missing(let rev):
                        errorPart(["rev": .string(rev), "error": "not_found", "reason": "missing"])
                    }
                }
            }
        }
        if !results.isEmpty { segments.append(.bytes(writer.closing() + [13, 10])) }
        return CouchResponse.segments(segments, from: store, contentType: writer.contentType(subtype))
    }

    /// One document as `multipart/related`, or JSON when no attachment bytes are to be sent.
    static func multipartDocument(_ document: JSONObject, store: DocumentStore, headers: [(String, String)]) -> Response {
        let encoded = MultipartRelated.encode(document, boundary: MultipartWriter.randomBoundary())
        return CouchResponse.segments(encoded.segments, from: store, contentType: encoded.contentType, headers: headers)
    }
}
