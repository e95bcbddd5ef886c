internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|HEAD|PUT|DELETE /{db}/{docid}/{attname}` (spec D-44).
    func attachment(_ request: CouchRequest, database: String, id: String, name: String) async throws -> Response {
        switch request.method {
        case .get, .head:
            let store = try await authorizedStore(database, for: request.user, access: .member)
            let attachment = try await store.attachment(documentID: id, name: name, rev: request.query["rev"])
            let headers = [("ETag", "\"\(attachment.info.digest)\""), ("Accept-Ranges", "none")]
            if request.method == .head {
                var response = CouchResponse.headOnly(contentType: attachment.info.contentType, headers: headers)
                response.headers[.contentLength] = String(attachment.data.count)
                return response
            }
            return CouchResponse.raw(attachment.data, contentType: attachment.info.contentType, headers: headers)
        case .put:
            let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
            let rev = request.query["rev"] ?? request.header(.ifMatch).map(Self.unquote)
            var document: JSONObject = ["_id": .string(id)]
            if let rev { document = try await store.document(id: id, options: ReadOptions(rev: rev)) }
            var attachments = document["_attachments"]?.objectValue ?? JSONObject()
            attachments[name] = [
                "content_type": .string(request.header(.contentType) ?? "application/octet-stream"),
                "data": .string(Base64.encode(request.body)),
            ]
            document["_attachments"] = .object(attachments)
            let result = try await store.put(document)
            return CouchResponse.json(result.json, status: 201, headers: [("ETag", "\"\(result.rev)\"")])
        case .delete:
            let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
            guard let rev = request.query["rev"] ?? request.header(.ifMatch).map(Self.unquote) else {
                throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id))
            }
            var document = try await store.document(id: id, options: ReadOptions(rev: rev))
            var attachments = document["_attachments"]?.objectValue ?? JSONObject()
            guard attachments.removeValue(forKey: name) != nil else {
                throw HTTPFailure.notFound("Document is missing attachment")
            }
            if attachments.isEmpty {
                _ = document.removeValue(forKey: "_attachments")
            } else {
                document["_attachments"] = .object(attachments)
            }
            let result = try await store.put(document)
            return CouchResponse.json(result.json, headers: [("ETag", "\"\(result.rev)\"")])
        default:
            throw unsupported("GET,HEAD,PUT,DELETE")
        }
    }
}
