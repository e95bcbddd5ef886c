internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `COPY /{db}/{docid}` with `Destination: target[?rev=N-…]`: writes the source document's body and
    /// attachments (its winner, or the revision `?rev=` or `If-Match` names) as `target`, as a new document or
    /// as an edit of the target revision the destination names (`chttpd_db`'s `COPY` clause).
    ///
    /// - Throws: ``HTTPFailure`` `400` without a `Destination`, with an absolute one or a malformed rev,
    ///   `404` for a missing source, `409` when the target exists and the destination names no current rev.
    func copyDocument(_ request: CouchRequest, database: String, id: String) async throws -> Response {
        // The database first (404 when missing, as `chttpd_db` finds it before `db_doc_req/3` runs), then the
        // destination, then the source revision, where `rev` and `If-Match` must agree (`extract_header_rev/2`).
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let (targetID, targetRev) = try Self.copyDestination(request.header(HTTPField.Name("Destination")!))
        try DocumentID.validate(targetID)
        let sourceRev = try Self.revision(body: nil, request: request)
        try await readAccess(of: store, for: request.user).requireVisible(id: id, in: store)
        // A deleted source revision (named by `rev`) is copied as a deletion, as CouchDB keeps the flag.
        var source = try await store.document(id: id, options: ReadOptions(rev: sourceRev, attachmentEncodingInfo: true))
        source["_id"] = .string(targetID)
        source["_rev"] = targetRev.map { .string($0) }
        source["_revisions"] = nil
        // The attachments name the content the store holds, with their metadata: CouchDB's copy keeps each
        // one's `revpos` (its data is already on disk, `set_new_att_revpos/1`), and no bytes are read.
        // The stubs carry every member of the storage form (`att_encoding_info` adds the encoding), so they
        // read back as the revision's attachment table.
        let stubs = try source.removeValue(forKey: "_attachments").map(AttachmentTable.init(storageJSON:)) ?? AttachmentTable()
        var incoming = try IncomingDocument(try await prepareForDatabase(source, database, user: request.user, client: request.clientAddress))
        if !stubs.isEmpty {
            incoming.attachments = stubs.entries.mapValues(IncomingAttachment.stored)
            incoming.attachmentOrder = stubs.orderedNames
        }
        let targetStore = try await authorizedStore(database, for: request.user, access: writeAccess(for: targetID))
        let checked = try await documentAccess(of: targetStore, for: request.user).prepareWrite(
            incoming, in: targetStore, replicated: false)
        let result: WriteResult
        if DocumentID.isLocal(targetID) {
            result = try await writeLocal(checked, id: targetID, in: targetStore)
        } else {
            result = try await targetStore.put(checked)
        }
        return CouchResponse.json(
            result.json, status: 201,
            headers: [
                ("Location", request.location(database: database, id: result.id)), ("ETag", "\"\(result.rev)\""),
            ])
    }

    /// The target of a `COPY` (`couch_httpd_db:parse_copy_destination_header/1`): a relative id,
    /// percent-decoded, optionally followed by `?rev=N-…`.
    static func copyDestination(_ header: String?) throws -> (id: String, rev: String?) {
        guard let header else { throw HTTPFailure.badRequest("Destination header is mandatory for COPY.") }
        let lower = header.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            throw HTTPFailure.badRequest("Destination URL must be relative.")
        }
        guard let question = header.firstIndex(of: "?") else {
            return (PercentDecoding.decode(header, plusIsSpace: true), nil)
        }
        let id = PercentDecoding.decode(header[..<question], plusIsSpace: true)
        let query = header[header.index(after: question)...]
        guard let equals = query.firstIndex(of: "=") else { throw HTTPFailure.badRequest("Invalid rev format") }
        let rev = String(query[query.index(after: equals)...])
        guard (try? RevisionID(parsing: rev)) != nil else { throw HTTPFailure.badRequest("Invalid rev format") }
        return (id, rev)
    }
}
