public import CloudantCore

/// One revision asked for by ``DocumentStore/bulkGet(_:latest:inlineAttachmentLimit:)`` (a CouchDB `_bulk_get` entry).
public struct BulkGetRequest: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// The revision; nil asks for every leaf.
    public var rev: String?
    /// Revisions the asker already has: attachments they hold come back as stubs (`atts_since`).
    public var attachmentsSince: [String]

    /// Creates a request.
    public init(id: String, rev: String? = nil, attachmentsSince: [String] = []) {
        self.id = id
        self.rev = rev
        self.attachmentsSince = attachmentsSince
    }
}

/// The revisions found for one ``BulkGetRequest``.
public struct BulkGetResult: Sendable, Hashable {
    /// The document id asked for.
    public var id: String
    /// Each revision, with `_revisions` and inline attachment data, or why it is missing.
    public var docs: [OpenRevisionResult]

    /// CouchDB's entry: `{"id": …, "docs": [{"ok": {…}} | {"error": {"id","rev","error","reason"}}]}`.
    public var json: JSONValue {
        [
            "id": .string(id),
            "docs": .array(
                docs.map { result in
                    switch result {
                    case .ok(let document): ["ok": .object(document)]
                    case .missing(let rev):
                        ["error": ["id": .string(id), "rev": .string(rev), "error": "not_found", "reason": "missing"]]
                    }
                }),
        ]
    }
}

extension DocumentStore {
    /// Reads many revisions in one transaction, as a replicator fetches them (CouchDB's
    /// `_bulk_get?revs=true`): each with its `_revisions` history and its attachments inline,
    /// except those the asker already holds (`attachmentsSince`).
    ///
    /// ```swift
    /// let results = try await store.bulkGet([BulkGetRequest(id: "walk", rev: "2-abc")])
    /// ```
    /// - Parameters:
    ///   - requests: The revisions to read: an id, and a revision or none for the winner.
    ///   - latest: Follow a superseded revision to the leaves that replaced it.
    ///   - inlineAttachmentLimit: Attachments stored at least this long come as stubs marked
    ///     `"follows_separately": true` instead of inline (``ReadOptions/inlineAttachmentLimit``).
    public func bulkGet(
        _ requests: [BulkGetRequest], latest: Bool = true, inlineAttachmentLimit: Int? = nil
    ) async throws -> [BulkGetResult] {
        try await read(.storeUnreadable) { db in
            try requests.map { request in
                guard let record = try DocumentRecord.fetch(id: request.id, in: db) else {
                    return BulkGetResult(id: request.id, docs: [.missing(request.rev ?? "undefined")])
                }
                let assembler = DocumentAssembler(db: db, record: record)
                var options = ReadOptions(revs: true, attachments: request.attachmentsSince.isEmpty, attachmentsSince: request.attachmentsSince)
                options.inlineAttachmentLimit = inlineAttachmentLimit
                var revisions: [RevisionID] = []
                if let text = request.rev {
                    guard let rev = try? RevisionID(parsing: text) else {
                        return BulkGetResult(id: request.id, docs: [.missing(text)])
                    }
                    let targets = latest ? record.tree.leaves(descendingFrom: rev) : [rev]
                    revisions = targets.isEmpty ? [rev] : targets
                } else {
                    revisions = record.tree.leaves
                }
                let docs = try revisions.map { rev -> OpenRevisionResult in
                    if let document = try assembler.document(rev: rev, options: options) { return .ok(document) }
                    return .missing(rev.description)
                }
                return BulkGetResult(id: request.id, docs: docs)
            }
        }
    }
}
