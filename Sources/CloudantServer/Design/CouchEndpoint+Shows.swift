internal import CloudantCore
internal import CloudantStore
internal import Crypto
internal import Foundation
internal import Hummingbird

extension CouchEndpoint {
    /// `/{db}/_design/{ddoc}/_show/{show}[/{docid}]`, as CouchDB 3.5's `chttpd_show` serves it: the show
    /// function gets the document (with `_revisions` and `_conflicts`; `null` when it is missing) and the
    /// request object, and its answer becomes the response, with an `ETag` and `Vary: Accept`.
    /// - Parameter reader: A user of the authentication database who does not administer it: the document is
    ///   read as ``userDocument(_:asReadBy:)`` shows it to them.
    func show(
        _ request: CouchRequest, database: String, store: DocumentStore, ddoc: JSONObject, path: [String],
        reader: UserContext? = nil
    ) async throws -> Response {
        guard let name = path.first else { throw HTTPFailure(status: 404, error: "show_error", reason: "Invalid path.") }
        try Self.requireMember(ddoc, ["shows", name])
        let documentID = path.count > 1 ? path.dropFirst().joined(separator: "/") : nil
        var document = try await documentForFunction(documentID, in: store)
        if let reader, let read = document { document = try userDocument(read, asReadBy: reader) }
        let etag = showETag(request, ddoc: ddoc, document: document, extra: nil)
        if request.ifNoneMatch(etag) { return CouchResponse.notModified(headers: [("ETag", etag)]) }
        let answer = try await callDocumentFunction(
            request, database: database, store: store, ddoc: ddoc, path: ["shows", name], document: document,
            documentID: documentID)
        guard case .array(let parts) = answer, parts.count == 2, parts[0] == "resp", case .object(let object) = parts[1] else {
            throw HTTPFailure(status: 500, error: "render_error", reason: "undefined response from show function")
        }
        var response = try ExternalResponse(object)
        response.setHeader("Vary", "Accept")
        response.setHeader("ETag", etag)
        return response.response()
    }

    /// `/{db}/_design/{ddoc}/_update/{update}[/{docid}]`: the update function gets the document (or `null`)
    /// and the request; when it returns a document, that is written (validation functions included) and the
    /// answer is `201` with `X-Couch-Update-NewRev` and `X-Couch-Id`, else `200`; its own `code` wins.
    func update(
        _ request: CouchRequest, database: String, store: DocumentStore, ddoc: JSONObject, path: [String]
    ) async throws -> Response {
        guard let name = path.first else { throw HTTPFailure(status: 404, error: "update_error", reason: "Invalid path.") }
        try Self.requireMember(ddoc, ["updates", name])
        let documentID = path.count > 1 ? path.dropFirst().joined(separator: "/") : nil
        let document = try await documentForFunction(documentID, in: store)
        let answer = try await callDocumentFunction(
            request, database: database, store: store, ddoc: ddoc, path: ["updates", name], document: document,
            documentID: documentID)
        guard case .array(let parts) = answer, parts.count == 3, parts[0] == "up", case .object(let object) = parts[2] else {
            throw HTTPFailure(status: 500, error: "render_error", reason: "undefined response from update function")
        }
        var members = object.members
        if case .object(let newDocument) = parts[1] {
            // `couch_doc:validate_docid/1` on the returned document: one without an `_id` gets none made up.
            try DocumentID.validate(newDocument["_id"]?.stringValue ?? "")
            // Written as the user would write it themselves: a member cannot write a design document this way.
            let written = try await writeAsRequested(newDocument, request: request, database: database)
            var response = JSONObject(members.map { ($0.key, $0.value) })
            var headers = response["headers"]?.objectValue ?? JSONObject()
            headers = headers.prepending([
                ("X-Couch-Update-NewRev", .string(written.rev)), ("X-Couch-Id", .string(URLEncoding.couchDB(written.id))),
            ])
            response["headers"] = .object(headers)
            members = [("code", 201)] + response.members
        } else {
            members = [("code", 200)] + members
        }
        return try ExternalResponse(JSONObject(members.map { ($0.key, $0.value) })).response()
    }

    /// Calls the show or update function at `path` of `ddoc` the way both are called: with the document (`null`
    /// when there is none) and the request object, in the design document's language.
    private func callDocumentFunction(
        _ request: CouchRequest, database: String, store: DocumentStore, ddoc: JSONObject, path: [String],
        document: JSONObject?, documentID: String?
    ) async throws -> JSONValue {
        let runtime = try designRuntime(language: ddoc["language"]?.stringValue ?? "javascript")
        let requestObject = try await self.requestObject(request, store: store, database: database, documentID: documentID)
        return try runtime.callDesignFunction(
            ddoc, path: path, arguments: [document.map(JSONValue.object) ?? .null, .object(requestObject)], session: nil)
    }

    /// The document a show or update function gets: with `_revisions` (at most 20) and `_conflicts`; nil when
    /// it is missing or deleted.
    func documentForFunction(_ id: String?, in store: DocumentStore) async throws -> JSONObject? {
        guard let id else { return nil }
        do {
            let document = try await store.document(id: id, options: ReadOptions(revs: true, conflicts: true))
            guard case .object(var revisions)? = document["_revisions"], case .array(let ids)? = revisions["ids"], ids.count > 20
            else { return document }
            revisions["ids"] = .array(Array(ids.prefix(20)))
            var capped = document
            capped["_revisions"] = .object(revisions)
            return capped
        } catch let error as CloudantError where error.code == .notFound {
            return nil
        }
    }

    /// `couch_util:get_nested_json_value`: the member at `path`, or `404` "missing json key: …".
    static func requireMember(_ ddoc: JSONObject, _ path: [String]) throws {
        var value: JSONValue? = .object(ddoc)
        for key in path {
            value = value?[key]
            if value == nil { throw HTTPFailure.notFound("missing json key: \(key)") }
        }
    }

    /// A show's ETag: the design document's and the document's revisions, the `Accept` header and the user.
    private func showETag(_ request: CouchRequest, ddoc: JSONObject, document: JSONObject?, extra: String?) -> String {
        var parts = [ddoc["_rev"]?.stringValue ?? "", document?["_rev"]?.stringValue ?? "null", request.header(.accept) ?? ""]
        parts.append(request.user.name ?? "")
        parts += request.user.roles
        if let extra { parts.append(extra) }
        let digest = Insecure.MD5.hash(data: Array(parts.joined(separator: "\u{0}").utf8))
        return "\"" + digest.map { String(format: "%02X", $0) }.joined() + "\""
    }
}
