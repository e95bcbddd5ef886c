internal import CloudantCore
internal import CloudantStore
internal import Crypto
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|HEAD|PUT|DELETE /{db}/{docid}` (also `_design/…` and `_local/…`).
    func document(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        if database == usersDatabase, !request.user.isServerAdmin, let name = request.user.name,
            id == UsersDatabase.idPrefix + name
        {
            return try await ownUserDocument(request, id: id)
        }
        if database == usersDatabase, !request.user.isServerAdmin,
            let answer = try await otherUserDocument(request, id: id)
        {
            return answer
        }
        switch request.method {
        case .get, .head: return try await readDocument(request, database: database, id: id)
        case .put: return try await putDocument(request, database: database, id: id)
        case .delete: return try await deleteDocument(request, database: database, id: id)
        case .post: return try await postForm(request, database: database, id: id)
        case _ where request.method.rawValue == "COPY": return try await copyDocument(request, database: database, id: id)
        default: throw unsupported("DELETE,GET,HEAD,POST,PUT,COPY")
        }
    }

    /// Design documents need a database admin to change, as in CouchDB.
    func writeAccess(for id: String) -> Access { id.hasPrefix("_design/") ? .admin : .member }

    private func readDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        let store = try await authorizedStore(database, for: request.user, access: .member)
        try await readAccess(of: store, for: request.user).requireVisible(id: id, in: store)
        var options = try Self.readOptions(request.query)
        // A revision asked for by name is looked up among the database's documents
        // (`couch_db:open_doc_revs_int/3`), where `_local` ones never are: `rev` finds nothing, and `open_revs`
        // answers as for a missing document.
        if DocumentID.isLocal(id), options.rev != nil, request.query["open_revs"] == nil {
            throw CloudantError(.notFound, "missing", context: .init(documentID: id))
        }
        if let openRevs = request.query["open_revs"] {
            let which: OpenRevisions
            if openRevs == "all" {
                which = .all
            } else {
                which = .revisions(try Self.revisionList(try request.query.json("open_revs") ?? .null))
            }
            // `open_revs=[]` answers the plain winning document.
            if which != .revisions([]) {
                options.rev = nil
                let latest = request.query.flag("latest")
                let multipart = MediaType.accepts("multipart/mixed", in: request.header(.accept))
                // Parts carry every attachment's bytes except those `atts_since` says the asker holds,
                // as stored: CouchDB's multipart answers always send encoded attachments encoded.
                if multipart {
                    options.attachments = options.attachmentsSince.isEmpty
                    options.attachmentsAsStored = true
                    options.inlineAttachmentLimit = Self.streamedAttachmentSize
                }
                let results = try await store.openRevisions(id: id, which, latest: latest, options: options)
                if multipart { return Self.openRevisionsMultipart(results, store: store) }
                return CouchResponse.json(.array(results.map(\.json)))
            }
        }
        // `?rev=X&latest=true` answers the winner (CouchDB's quirk).
        if request.query.flag("latest") { options.rev = nil }
        let multipart =
            (options.attachments || !options.attachmentsSince.isEmpty)
            && MediaType.accepts("multipart/related", in: request.header(.accept))
        options.attachmentsAsStored = multipart
        if multipart { options.inlineAttachmentLimit = Self.streamedAttachmentSize }
        let document = try await store.document(id: id, options: options)
        // CouchDB sends an ETag only for the document as stored: not when the answer carries metadata
        // computed for this request (`_revs_info`, `_conflicts`, `_deleted_conflicts`, `_local_seq`).
        let etag = Self.hasRequestMetadata(document) ? nil : Self.etag(of: document, id: id)
        let etagHeader = etag.map { [("ETag", $0)] } ?? []
        if let etag, request.ifNoneMatch(etag) {
            return CouchResponse.notModified(headers: etagHeader)
        }
        let response =
            multipart ? Self.multipartDocument(document, store: store, headers: etagHeader) : CouchResponse.json(.object(document), headers: etagHeader)
        return request.method == .head ? CouchResponse.head(of: response) : response
    }

    /// Whether a read answer holds members computed for the request rather than stored with the revision.
    private static func hasRequestMetadata(_ document: JSONObject) -> Bool {
        ["_revs_info", "_conflicts", "_deleted_conflicts", "_local_seq"].contains { document[$0] != nil }
    }

    /// CouchDB's ETag of a document: its quoted revision, or for a `_local` document (whose `0-N` revision
    /// says little) a digest of its revision and body.
    static func etag(of document: JSONObject, id: String) -> String {
        let rev = document["_rev"]?.stringValue ?? ""
        guard DocumentID.isLocal(id) else { return "\"\(rev)\"" }
        let digest = Insecure.MD5.hash(data: JSONValue.object(document).jsonBytes())
        return "\"" + digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined() + "\""
    }

    private func putDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        if request.header(.contentType).flatMap({ MediaType(parsing: $0) })?.isMultipart("related") == true {
            return try await putMultipartDocument(request, database: database, id: id)
        }
        var document = try request.documentBody()
        // `couch_doc:transfer_fields/3` checks a body's own `_id` before `couch_doc_from_req/4` puts the path's in
        // its place.
        if let given = document["_id"] {
            guard case .string(let text) = given else {
                throw HTTPFailure(status: 400, error: "illegal_docid", reason: "Document id must be a string")
            }
            try DocumentID.validate(text)
        }
        document["_id"] = .string(id)
        if let rev = try Self.revision(body: document["_rev"]?.stringValue, request: request) { document["_rev"] = .string(rev) }
        return try await write(document, request: request, database: database)
    }

    /// The revision a `PUT` edits, as `chttpd_db:couch_doc_from_req/4` reads it: the body's `_rev`, `?rev=` and
    /// `If-Match` must agree where more than one is given.
    /// - Throws: ``HTTPFailure`` `400` with CouchDB's reasons when they differ.
    static func revision(body: String?, request: CouchRequest) throws -> String? {
        let query = request.query["rev"]
        if let body, let query, body != query {
            throw HTTPFailure.badRequest("Document rev from request body and query string have different values")
        }
        let explicit = body ?? query
        let etag = request.header(.ifMatch).map(Self.unquote)
        if let explicit, let etag, explicit != etag {
            throw HTTPFailure.badRequest("Document rev and etag have different values")
        }
        return explicit ?? etag
    }

    /// Writes one JSON document the way `PUT` and `POST` do; see ``write(parsed:request:database:)``.
    func write(_ document: JSONObject, request: CouchRequest, database: String) async throws -> Response {
        try checkDocumentSize(.object(document))
        let prepared = try await prepareForDatabase(document, database, user: request.user, client: request.clientAddress)
        return try await write(parsed: try IncomingDocument(prepared), request: request, database: database)
    }

    /// The document as `database` stores it: `_users` documents get their password hashed (on the hashing
    /// threads, under `client`'s share); `_replicator` documents are checked and get their `owner`
    /// (``ReplicatorDatabase/prepare(_:user:)``).
    func prepareForDatabase(
        _ document: JSONObject, _ database: String, user: UserContext, client: String?
    ) async throws -> JSONObject {
        if database == ReplicatorDatabase.name { return try ReplicatorDatabase.prepare(document, user: user) }
        guard database == usersDatabase else { return document }
        return try await UsersDatabase.prepare(
            document, settings: nodeConfiguration.passwordSettings, validatesNatively: validatesUsersNatively,
            hashing: hashing, client: client)
    }

    /// Writes one document the way `PUT` and `POST` do: `new_edits=false`, `_local` last-writer-wins,
    /// `batch=ok`, and CouchDB's status and headers: 201 (a `PUT` of a deletion 200, as `chttpd_db:update_doc`
    /// answers one, while `POST /{db}` answers 201 whatever it wrote; 202 for `batch=ok` or an unmet `w`),
    /// `Location`, and an `ETag` except on `POST` (CouchDB sends none there).
    /// - Parameter batchMode: whether `batch=ok` is read; CouchDB's `multipart/related` `PUT` never reads it.
    func write(
        parsed unchecked: IncomingDocument, request: CouchRequest, database: String, batchMode: Bool = true
    ) async throws -> Response {
        let id = unchecked.id
        // `POST /{db}` is always an interactive edit: CouchDB's clause never reads `new_edits` (only a `PUT`'s
        // `parse_doc_query/1` does), so a client cannot plant a revision of its choosing that way.
        let newEdits = request.method == .post || request.query.newEdits
        let (store, incoming) = try await authorizedWrite(unchecked, user: request.user, database: database, replicated: !newEdits)
        if batchMode, request.query["batch"] == "ok" {
            return try await writeInBatchMode(incoming, store: store)
        }
        let result: WriteResult
        if let id, DocumentID.isLocal(id) {
            result = try await writeLocal(incoming, id: id, in: store)
        } else if !newEdits {
            let failures = try await store.bulkDocs(parsed: [incoming], newEdits: false)
            if let error = failures.first?.error { throw error }
            result = WriteResult(id: id ?? "", rev: incoming.rev?.description ?? "")
        } else {
            result = try await store.put(incoming)
        }
        var headers = [("Location", request.location(database: database, id: result.id))]
        if request.method != .post {
            let stored = incoming.body.prepending([("_id", .string(result.id)), ("_rev", .string(result.rev))])
            headers.insert(("ETag", Self.etag(of: stored, id: result.id)), at: 0)
        }
        let status = try Self.writeQuorumUnmet(request) ? 202 : incoming.deleted && request.method != .post ? 200 : 201
        return CouchResponse.json(result.json, status: status, headers: headers)
    }

    /// The store to write `unchecked` to and the document as `user` may write it: a design document needs a
    /// database admin (`couch_db:validate_doc_update/3` checks on every path), and per-document access
    /// stamps or refuses it.
    func authorizedWrite(
        _ unchecked: IncomingDocument, user: UserContext, database: String, replicated: Bool
    ) async throws -> (DocumentStore, IncomingDocument) {
        let store = try await authorizedStore(database, for: user, access: writeAccess(for: unchecked.id ?? ""))
        let incoming = try await documentAccess(of: store, for: user).prepareWrite(unchecked, in: store, replicated: replicated)
        return (store, incoming)
    }

    /// Writes a document an update function returned, as a `PUT` of it by the request's user would be written
    /// (`chttpd_show:send_doc_update_response/6` hands it to `fabric:update_doc/3` with the user's context): its
    /// size checked, prepared for `_users` or `_replicator`, a design document only by a database admin,
    /// per-document access applied, a `_local` document kept as one.
    func writeAsRequested(_ document: JSONObject, request: CouchRequest, database: String) async throws -> WriteResult {
        try checkDocumentSize(.object(document))
        let prepared = try await prepareForDatabase(document, database, user: request.user, client: request.clientAddress)
        let (store, incoming) = try await authorizedWrite(try IncomingDocument(prepared), user: request.user, database: database, replicated: false)
        if let id = incoming.id, DocumentID.isLocal(id) { return try await writeLocal(incoming, id: id, in: store) }
        return try await store.put(incoming)
    }

    /// `batch=ok`: CouchDB answers 202 `{"ok":true,"id":…}` before writing and logs a write that fails.
    /// We write first (so an answered write is durable), but answer as CouchDB does; a conflict in batch
    /// mode is lost, as it is in CouchDB.
    private func writeInBatchMode(_ incoming: IncomingDocument, store: DocumentStore) async throws -> Response {
        var incoming = incoming
        let id = incoming.id ?? store.options.makeDocumentID()
        incoming.id = id
        do {
            if DocumentID.isLocal(id) {
                _ = try await writeLocal(incoming, id: id, in: store)
            } else {
                _ = try await store.put(incoming)
            }
        } catch let error as CloudantError where error.code == .conflict {
            // Dropped, as CouchDB drops a batch-mode write that conflicts.
        }
        return CouchResponse.json(["ok": true, "id": .string(id)], status: 202)
    }

    /// `POST /{db}`: a new document, its id from the body or generated.
    func postDocument(_ request: CouchRequest, database: String) async throws -> Response {
        try request.requireJSONContentType()
        return try await write(try request.documentBody(), request: request, database: database)
    }

    private func deleteDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        let store = try await authorizedStore(database, for: request.user, access: writeAccess(for: id))
        // `couch_doc_from_req/4`: `rev` and `If-Match` must agree.
        let rev = try Self.revision(body: nil, request: request)
        // `202` when `w` asks for more copies than a single node keeps (`update_doc/4`'s `accepted`).
        let accepted = try Self.writeQuorumUnmet(request)
        let access = try await documentAccess(of: store, for: request.user)
        // A hidden document, `_local/` ones included, is deleted as a missing one is: not at all.
        try await access.requireVisible(id: id, in: store)
        if DocumentID.isLocal(id) {
            // `couch_doc_from_req/4` parses a given revision (`400 Invalid rev format`); a deletion then needs
            // no matching one. The ETag is of the new revision, as for any write.
            let current = try await store.localDocument(id: id)
            if let rev, (try? RevisionID(parsing: rev)) == nil {
                throw HTTPFailure.badRequest("Invalid rev format")
            }
            let result = try await store.deleteLocal(id: id, rev: current["_rev"]?.stringValue ?? "0-0")
            let etag = Self.etag(of: ["_id": .string(id), "_rev": .string(result.rev), "_deleted": true], id: id)
            return CouchResponse.json(result.json, headers: [("ETag", etag)])
        }
        guard let rev else {
            _ = try await store.document(id: id)
            throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id))
        }
        let result: WriteResult
        if access.field != nil {
            // A missing or deleted document is a 404, as `store.delete` answers below (`chttpd_db` opens the
            // document before it deletes it).
            _ = try await store.document(id: id)
            // The tombstone keeps the access list, so the deletion reaches the people the document concerned.
            let tombstone = try await access.prepareWrite(
                try IncomingDocument(["_id": .string(id), "_rev": .string(rev), "_deleted": true]), in: store)
            result = try await store.put(tombstone)
        } else {
            result = try await store.delete(id: id, rev: rev)
        }
        return CouchResponse.json(result.json, status: accepted ? 202 : 200, headers: [("ETag", "\"\(result.rev)\"")])
    }

    /// `_local` documents are last-writer-wins over HTTP, as CouchDB 3: no conflict check, the
    /// new revision is the one named plus one, and a deletion needs no revision.
    func writeLocal(_ incoming: IncomingDocument, id: String, in store: DocumentStore) async throws -> WriteResult {
        if incoming.deleted {
            let current = try await store.localDocument(id: id)
            return try await store.deleteLocal(id: id, rev: current["_rev"]?.stringValue ?? "0-0")
        }
        return try await store.putLocal(id: id, body: incoming.body, rev: incoming.rev?.description, lastWriterWins: true)
    }

    /// CouchDB's document read parameters (`chttpd_db:parse_doc_query/2`): each option is on for `true` and
    /// only for `true` (``QueryParameters/flag(_:)``).
    static func readOptions(_ query: QueryParameters) throws -> ReadOptions {
        var options = ReadOptions(
            rev: query["rev"], revs: query.flag("revs"), revsInfo: query.flag("revs_info"), conflicts: query.flag("conflicts"),
            deletedConflicts: query.flag("deleted_conflicts"), attachments: query.flag("attachments"),
            localSeq: query.flag("local_seq"), attachmentEncodingInfo: query.flag("att_encoding_info"))
        // `atts_since`, even empty, asks for attachments: those newer than the newest ancestor it names, all
        // when it names none (`db_doc_req/3` adds `attachments` beside it).
        if let since = try query.json("atts_since") {
            options.attachmentsSince = try revisionList(since)
            options.attachments = true
        }
        options.includesDeleted = query.flag("deleted")
        if query.flag("meta") {
            options.conflicts = true
            options.deletedConflicts = true
            options.revsInfo = true
        }
        return options
    }

    /// A list of revisions in a query parameter, as `couch_doc:parse_revs/1` reads one.
    /// - Throws: ``HTTPFailure`` `400` "Invalid list of revisions" for anything but a list, "Invalid rev format"
    ///   for an entry that is not a revision.
    static func revisionList(_ json: JSONValue) throws -> [String] {
        guard case .array(let entries) = json else { throw HTTPFailure.badRequest("Invalid list of revisions") }
        return try entries.map { entry in
            guard case .string(let text) = entry, (try? RevisionID(parsing: text)) != nil else {
                throw HTTPFailure.badRequest("Invalid rev format")
            }
            return text
        }
    }

    /// `"1-abc"` → `1-abc` (ETag and If-Match values are quoted).
    /// Whether a write asks for more copies than the one this node keeps (`w` above 1): a single CouchDB
    /// node writes its one copy and answers `202 Accepted`, the quorum being unmet (`fabric_doc_update`).
    /// - Parameter bodyW: `w` from a `_bulk_docs` body, which wins over the query's.
    /// - Throws: ``HTTPFailure`` `400` for a `w` that is not an integer (CouchDB answers 500).
    static func writeQuorumUnmet(_ request: CouchRequest, bodyW: JSONValue? = nil) throws -> Bool {
        if let bodyW, let w = bodyW.numberValue?.int64Value { return w > 1 }
        guard let text = request.query["w"] else { return false }
        guard let w = Int(text) else { throw HTTPFailure.badRequest("The `w` value should be an integer.") }
        return w > 1
    }

    static func unquote(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }
}

extension String {
    /// The string with `0`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
