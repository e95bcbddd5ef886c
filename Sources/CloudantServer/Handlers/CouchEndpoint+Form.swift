internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `POST /{db}/{docid}` with a `multipart/form-data` body, an HTML form's upload, as CouchDB's
    /// `chttpd_db:db_doc_req/3` takes it: the `Referer` must name this host (a form on another site cannot
    /// post here), the id must be a legal one, a `_doc` field is the document to write (else `_rev` names the
    /// revision to edit), and every `_attachments` file field adds or replaces the attachment of its file
    /// name. Answers `201` (`202` when `w` asks for more copies than one node keeps) with the new revision.
    func postForm(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        // The database first, as `chttpd_db` opens it before `db_doc_req` looks at the request.
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
        try Self.requireRefererOfThisHost(request)
        try DocumentID.validate(id)
        guard let type = request.header(.contentType).flatMap({ MediaType(parsing: $0) }), type.isMultipart("form-data") else {
            throw HTTPFailure(status: 415, error: "bad_content_type", reason: "Content-Type must be multipart/form-data")
        }
        guard let boundary = type.parameter("boundary"), !boundary.isEmpty else {
            throw HTTPFailure.badRequest("A multipart/form-data body needs a boundary parameter.")
        }
        let parts: [MultipartPart]
        do {
            parts = try MultipartParser.parts(of: request.body, boundary: boundary)
        } catch {
            throw HTTPFailure(error)
        }
        let fields = parts.map { (disposition: Self.formDisposition($0.header("Content-Disposition") ?? ""), part: $0) }
        var document: JSONObject
        if let field = fields.first(where: { $0.disposition.name == "_doc" }) {
            guard case .object(let object) = try? JSONValue(parsing: field.part.body) else {
                throw HTTPFailure.badRequest("invalid UTF-8 JSON")
            }
            document = object
            document["_id"] = .string(id)
            if let rev = try Self.revision(body: document["_rev"]?.stringValue, request: request) { document["_rev"] = .string(rev) }
        } else {
            guard let field = fields.first(where: { $0.disposition.name == "_rev" }) else {
                throw HTTPFailure.badRequest("A form post needs a _doc or a _rev field.")
            }
            let rev = String(decoding: field.part.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            do {
                document = try await store.document(id: id, options: ReadOptions(rev: rev))
            } catch let error as CloudantError where error.code == .notFound {
                throw HTTPFailure(status: 409, error: "not_found", reason: "missing_rev")
            }
        }
        var attachments = document["_attachments"]?.objectValue ?? [:]
        for field in fields where field.disposition.name == "_attachments" {
            guard let name = field.disposition.filename, !name.isEmpty else { continue }
            attachments[name] = [
                "content_type": .string(field.part.header("Content-Type") ?? "application/octet-stream"),
                "data": .string(Base64.encode(field.part.body)),
            ]
        }
        if !attachments.isEmpty { document["_attachments"] = .object(attachments) }
        try checkDocumentSize(.object(document))
        let prepared = try await prepareForDatabase(document, database, user: request.user, client: request.clientAddress)
        let incoming = try await documentAccess(of: store, for: request.user).prepareWrite(
            try IncomingDocument(prepared), in: store, replicated: false)
        let result = try await store.put(incoming)
        // CouchDB's form answer carries the ETag, and no Location.
        return CouchResponse.json(
            ["ok": true, "id": .string(result.id), "rev": .string(result.rev)],
            status: try Self.writeQuorumUnmet(request, bodyW: nil) ? 202 : 201, headers: [("ETag", "\"\(result.rev)\"")])
    }

    /// `couch_httpd:validate_referer/1`: a form post must come from a page of this host.
    /// - Throws: ``HTTPFailure`` `400` "Referer header required." or "Referer header must match host.".
    static func requireRefererOfThisHost(_ request: CouchRequest) throws {
        guard let referer = request.header(HTTPField.Name("Referer")!) else {
            throw HTTPFailure.badRequest("Referer header required.")
        }
        guard let host = request.requestedHost, let components = URLComponents(string: referer), let refererHost = components.host else {
            throw HTTPFailure.badRequest("Referer header must match host.")
        }
        let hostAndPort = refererHost + (components.port.map { ":\($0)" } ?? "")
        guard hostAndPort == host else { throw HTTPFailure.badRequest("Referer header must match host.") }
    }

    /// The `name` and `filename` of a form part's `Content-Disposition: form-data; name="…"; filename="…"`.
    static func formDisposition(_ value: String) -> (name: String?, filename: String?) {
        var name: String?
        var filename: String?
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            var text = pair[1]
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            switch pair[0].lowercased() {
            case "name": name = text
            case "filename": filename = text
            default: break
            }
        }
        return (name, filename)
    }
}
