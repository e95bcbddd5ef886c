public import CloudantCore
internal import GRDB

extension DocumentStore {
    /// Reads a document: its winning revision, or the one `options.rev` names. As in CouchDB, a revision read
    /// by name carries no `_revs_info`, `_conflicts`, `_deleted_conflicts` or `_local_seq`
    /// (`couch_db:open_doc_revs_int`), even when it is the winner.
    ///
    /// ```swift
    /// let doc = try await store.document(id: "walk", options: ReadOptions(conflicts: true))
    /// ```
    /// - Throws: `CloudantError` `.notFound` with message "missing" (never existed, or that revision's
    ///   body is gone) or "deleted" (the winner is a tombstone, unless ``ReadOptions/includesDeleted``), as CouchDB.
    public func document(id: String, options: ReadOptions = ReadOptions()) async throws -> JSONObject {
        if DocumentID.isLocal(id) { return try await localDocument(id: id) }
        try DocumentID.validate(id)
        let requested = try options.rev.map { try RevisionID(parsing: $0) }
        let read: @Sendable (Database) throws -> JSONObject = { db in
            guard let record = try DocumentRecord.fetch(id: id, in: db) else {
                throw CloudantError(.notFound, "missing", context: .init(documentID: id, revision: options.rev))
            }
            guard let rev = requested ?? (record.deleted && !options.includesDeleted ? nil : record.winnerRev) else {
                throw CloudantError(.notFound, "deleted", context: .init(documentID: id))
            }
            let assembled = requested == nil ? options : options.metadataFree
            guard let document = try DocumentAssembler(db: db, record: record).document(rev: rev, options: assembled) else {
                throw CloudantError(.notFound, "missing", context: .init(documentID: id, revision: rev.description))
            }
            return document
        }
        // A read without inline attachment data is short: run it here rather than hop to GRDB's reader queue
        // and back (the hop and its semaphores were a fifth of a `GET /db/doc`'s CPU). Attachment data may
        // be megabytes, read on a reader's own thread as before.
        return options.attachments ? try await self.read(.storeUnreadable, read) : try readNow(.storeUnreadable, read)
    }

    /// Reads several leaves of a document at once (CouchDB `open_revs`), optionally following
    /// each requested revision to the leaves that descend from it (`latest`).
    /// - Throws: `CloudantError` `.notFound` when the document does not exist and `which` is `.all`.
    public func openRevisions(
        id: String, _ which: OpenRevisions, latest: Bool = false, options: ReadOptions = ReadOptions()
    ) async throws -> [OpenRevisionResult] {
        let request = OpenRevisionsRequest(id: id, which, options: options)
        let requested = try request.parsedRevisions()
        return try await read(.storeUnreadable) { db in try Self.openRevisions(request, requested: requested, latest: latest, in: db) }
    }

    /// The bytes and metadata of one attachment of a document's winning revision, or of `rev`, read whole
    /// (``attachmentContent(documentID:name:rev:)`` reads them in pieces).
    /// - Throws: `CloudantError` `.notFound` when the document, revision or attachment does not exist.
    public func attachment(documentID: String, name: String, rev: String? = nil) async throws -> Attachment {
        let content = try await attachmentContent(documentID: documentID, name: name, rev: rev)
        return Attachment(name: name, info: content.info, storedData: try content.source.read(at: 0, length: content.source.count))
    }
}

/// An attachment's bytes and metadata.
public struct Attachment: Sendable, Hashable {
    /// The attachment name.
    public var name: String
    /// Its metadata (content type, digest, lengths, encoding, revpos).
    public var info: AttachmentInfo
    /// The bytes as stored: gzip when `AttachmentInfo.encoding` is `.gzip`; their MD5 is the digest.
    public var storedData: [UInt8]

    /// Creates an attachment from its stored form.
    public init(name: String, info: AttachmentInfo, storedData: [UInt8]) {
        self.name = name
        self.info = info
        self.storedData = storedData
    }

    /// The content as written (decoded when stored gzip-encoded).
    /// - Throws: `CloudantError` `.invalidInput` when stored gzip bytes no longer decode.
    public func data() throws -> [UInt8] {
        try DocumentAssembler.content(of: storedData, info: info, documentID: "", name: name)
    }
}
