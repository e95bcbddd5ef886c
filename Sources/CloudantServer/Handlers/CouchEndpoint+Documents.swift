internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|HEAD|PUT|DELETE /{db}/{docid}` (also `_design/…` and `_local/…`).
    func document(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        if database == UsersDatabase.name, !request.user.isServerAdmin, let name = request.user.name,
            id == UsersDatabase.idPrefix + name
        {
            return try await ownUserDocument(request, id: id)
        }
        switch request.method {
        case .get, .head: return try await readDocument(request, database: database, id: id)
        case .put: return try await putDocument(request, database: database, id: id)
        case .delete: return try await deleteDocument(request, database: database, id: id)
        default: throw unsupported("GET,HEAD,PUT,DELETE,COPY")
        }
    }

    /// Design documents need a database admin to change, as in CouchDB.
    func writeAccess(for id: String) -> Access { id.hasPrefix("_design/") ? .admin : .member }

    private func readDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        let store = try await authorizedStore(database, for: request.user, access: .member)
        var options = try Self.readOptions(request.query)
        if let openRevs = request.query["open_revs"], !DocumentID.isLocal(id) {
            let which: OpenRevisions
            if openRevs == "all" {
                which = .all
            } else {
                guard let list = try request.query.json("open_revs")?.arrayValue,
                    list.allSatisfy({ $0.stringValue != nil })
                else {
                    throw HTTPFailure.badRequest("open_revs must be \"all\" or a JSON list of revisions")
                }
                which = .revisions(list.compactMap(\.stringValue))
            }
            // `open_revs=[]` answers the plain winning document (spec O-7).
            if which != .revisions([]) {
                options.rev = nil
                let latest = try request.query.bool("latest", default: false)
                let multipart = MediaType.accepts("multipart/mixed", in: request.header(.accept))
                // Parts carry every attachment's bytes except those `atts_since` says the asker holds (D-43).
                if multipart { options.attachments = options.attachmentsSince.isEmpty }
                let results = try await store.openRevisions(id: id, which, latest: latest, options: options)
                if multipart { return Self.openRevisionsMultipart(results) }
                return CouchResponse.json(.array(results.map(\.json)))
            }
        }
        // `?rev=X&latest=true` answers the winner (CouchDB's quirk, spec D-32).
        if try request.query.bool("latest", default: false) { options.rev = nil }
        let document = try await store.document(id: id, options: options)
        let etag = "\"\(document["_rev"]?.stringValue ?? "")\""
        if request.header(.ifNoneMatch) == etag { return CouchResponse.headOnly(status: 304, headers: [("ETag", etag)]) }
        if request.method == .head { return CouchResponse.headOnly(headers: [("ETag", etag)]) }
        if options.attachments || !options.attachmentsSince.isEmpty,
            MediaType.accepts("multipart/related", in: request.header(.accept))
        {
            return Self.multipartDocument(document, headers: [("ETag", etag)])
        }
        return CouchResponse.json(.object(document), headers: [("ETag", etag)])
    }

    private func putDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        if request.header(.contentType).flatMap({ MediaType(parsing: $0) })?.isMultipart("related") == true {
            return try await putMultipartDocument(request, database: database, id: id)
        }
        var document = try request.jsonObjectBody()
        document["_id"] = .string(id)
        if let rev = request.query["rev"] ?? request.header(.ifMatch).map(Self.unquote) { document["_rev"] = .string(rev) }
        return try await write(document, request: request, database: database)
    }

    /// Writes one document the way `PUT` and `POST` do: `_users` hashing, `new_edits=false`, `_local`
    /// last-writer-wins, status 201 (200 for a deletion, spec O-3).
    func write(_ incoming: JSONObject, request: CouchRequest, database: String) async throws -> Response {
        let id = incoming["_id"]?.stringValue
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id ?? ""))
        var document = incoming
        if database == UsersDatabase.name {
            document = try UsersDatabase.prepare(document, iterations: configuration.passwordIterations)
        }
        if let id, DocumentID.isLocal(id) {
            let result = try await writeLocal(document, id: id, in: store)
            return CouchResponse.json(result.json, status: 201, headers: [("ETag", "\"\(result.rev)\"")])
        }
        if try !request.query.bool("new_edits", default: true) {
            let failures = try await store.bulkDocs([.object(document)], newEdits: false)
            if let error = failures.first?.error { throw error }
            let rev = document["_rev"]?.stringValue ?? ""
            return CouchResponse.json(WriteResult(id: id ?? "", rev: rev).json, status: 201)
        }
        let result = try await store.put(document)
        let status = document["_deleted"] == true ? 200 : (request.query["batch"] == "ok" ? 202 : 201)
        return CouchResponse.json(
            result.json, status: status,
            headers: [("ETag", "\"\(result.rev)\""), ("Location", "/\(database)/\(result.id)")])
    }

    /// `POST /{db}`: a new document, its id from the body or generated.
    func postDocument(_ request: CouchRequest, database: String) async throws -> Response {
        try request.requireJSONContentType()
        return try await write(try request.jsonObjectBody(), request: request, database: database)
    }

    private func deleteDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
        let rev = request.query["rev"] ?? request.header(.ifMatch).map(Self.unquote)
        if DocumentID.isLocal(id) {
            let current = try await store.localDocument(id: id)
            let result = try await store.deleteLocal(id: id, rev: current["_rev"]?.stringValue ?? "0-0")
            return CouchResponse.json(result.json)
        }
        guard let rev else {
            _ = try await store.document(id: id)
            throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id))
        }
        let result = try await store.delete(id: id, rev: rev)
        return CouchResponse.json(result.json, headers: [("ETag", "\"\(result.rev)\"")])
    }

    /// `_local` documents are last-writer-wins over HTTP, as CouchDB 3 (spec O-2): the stored revision is
    /// used whatever the client sent, retrying if another writer got in between.
    private func writeLocal(_ document: JSONObject, id: String, in store: DocumentStore) async throws -> WriteResult {
        var body = document
        for key in ["_id", "_rev", "_revisions"] { _ = body.removeValue(forKey: key) }
        if document["_deleted"] == true {
            let current = try await store.localDocument(id: id)
            return try await store.deleteLocal(id: id, rev: current["_rev"]?.stringValue ?? "0-0")
        }
        _ = body.removeValue(forKey: "_deleted")
        var attempts = 0
        while true {
            let current = try? await store.localDocument(id: id)
            do {
                return try await store.putLocal(id: id, body: body, rev: current?["_rev"]?.stringValue)
            } catch let error as CloudantError where error.code == .conflict && attempts < 5 {
                attempts += 1
            }
        }
    }

    /// CouchDB's document read parameters (spec §1.9).
    static func readOptions(_ query: QueryParameters) throws -> ReadOptions {
        var options = ReadOptions(
            rev: query["rev"], revs: try query.bool("revs", default: false),
            revsInfo: try query.bool("revs_info", default: false), conflicts: try query.bool("conflicts", default: false),
            deletedConflicts: try query.bool("deleted_conflicts", default: false),
            attachments: try query.bool("attachments", default: false), localSeq: try query.bool("local_seq", default: false))
        if let since = try query.json("atts_since") {
            guard let list = since.arrayValue?.compactMap(\.stringValue) else {
                throw HTTPFailure.badRequest("atts_since must be a JSON list of revisions")
            }
            options.attachmentsSince = list
        }
        if try query.bool("meta", default: false) {
            options.conflicts = true
            options.deletedConflicts = true
            options.revsInfo = true
        }
        return options
    }

    /// `"1-abc"` → `1-abc` (ETag and If-Match values are quoted).
    static func unquote(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }
}
