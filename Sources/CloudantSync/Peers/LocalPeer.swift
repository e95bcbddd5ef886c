public import CloudantCore
public import CloudantStore

/// A store in this process as a replication peer: the replicator calls the store directly, with no HTTP
/// and no JSON encoding between them.
///
/// ```swift
/// let stats = try await Replicator(source: LocalPeer(phone), target: LocalPeer(backup)).run()
/// ```
public struct LocalPeer: ReplicationPeer {
    /// The store.
    public let store: DocumentStore
    /// Attachments received ahead of the writes that carry them.
    private let staging = StagedAttachments()

    /// Wraps a store.
    public init(_ store: DocumentStore) {
        self.store = store
    }

    public func identity() async throws -> String { "local:" + store.uuid }

    public func info() async throws -> PeerInfo {
        let info = try await store.info()
        return PeerInfo(updateSeq: .number(JSONNumber(info.updateSeq)), instanceStartTime: info.instanceStartTime)
    }

    public func localDocument(id: String) async throws -> JSONObject? {
        do {
            return try await store.localDocument(id: id)
        } catch let error as CloudantError where error.code == .notFound {
            return nil
        }
    }

    public func filterFunctionSource(_ name: String) async throws -> String? {
        guard let (ddoc, function) = Self.filterParts(name) else { return nil }
        do {
            return try await store.document(id: "_design/" + ddoc)["filters"]?[function]?.stringValue
        } catch let error as CloudantError where error.code == .notFound {
            return nil
        }
    }

    public func putLocalDocument(id: String, body: JSONObject) async throws {
        // Local documents are this replicator's own; replace whatever revision is there.
        let current = try await localDocument(id: id)?["_rev"]?.stringValue
        var body = body
        body["_id"] = nil
        body["_rev"] = nil
        _ = try await store.putLocal(id: id, body: body, rev: current)
    }

    public func changes(_ request: ChangesRequest) async throws -> ChangesPage {
        let since = Self.sequence(request.since)
        var options = ChangesOptions(since: since, limit: request.limit, style: .allDocs)
        switch request.filter {
        case .none: break
        case .documentIDs(let ids): options.documentIDs = ids
        case .selector(let selector): options.filter = { selector.matches($0) }
        case .closure(_, let accept): options.filter = accept
        case .designFunction(let name, let parameters):
            options.filter = try await store.changesFilter(name, request: store.filterRequest(query: parameters))
            options.filterSeesRevisions = true
        }
        var result = try await store.changes(options)
        if result.results.isEmpty, let wait = request.longpoll,
            try await store.waitForChange(after: result.lastSeq, timeout: wait)
        {
            options.since = result.lastSeq
            result = try await store.changes(options)
        }
        return ChangesPage(
            changes: result.results.map {
                PeerChange(seq: .number(JSONNumber($0.seq)), id: $0.id, revs: $0.changes, deleted: $0.deleted)
            },
            lastSeq: .number(JSONNumber(result.lastSeq)), pending: result.pending)
    }

    public func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        try await store.revsDiff(revisions).mapValues {
            MissingRevisions(missing: $0.missing.map(\.description), possibleAncestors: $0.possibleAncestors.map(\.description))
        }
    }

    public func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] {
        let results = try await store.bulkGet(
            requests.map { BulkGetRequest(id: $0.id, rev: $0.rev, attachmentsSince: $0.attachmentsSince) })
        return Self.fetched(results, for: requests)
    }

    private static func fetched(_ results: [BulkGetResult], for requests: [RevisionRequest]) -> [FetchedRevision] {
        zip(requests, results).flatMap { request, result in
            result.docs.map { document -> FetchedRevision in
                switch document {
                case .ok(let body): .document(body)
                case .missing(let rev): .missing(id: request.id, rev: rev)
                }
            }
        }
    }

    public func write(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        guard documents.contains(where: StagedAttachments.refersToStaged) else {
            return Self.failures(try await store.bulkDocs(documents.map(JSONValue.object), newEdits: false), of: documents)
        }
        let (incoming, staged) = try staging.resolve(documents)
        defer { for attachment in staged { store.discardStagedAttachment(attachment) } }  // Untaken ones only.
        return Self.failures(try await store.bulkDocs(parsed: incoming, newEdits: false), of: documents)
    }

    /// The failed results, named by the revision of the document each answers (one result per document, in
    /// order).
    private static func failures(_ results: [BulkDocsResult], of documents: [JSONObject]) -> [WriteFailure] {
        results.enumerated().compactMap { index, result in
            guard case .failure(let id, let error) = result else { return nil }
            let rev = results.count == documents.count ? documents[index]["_rev"]?.stringValue : nil
            // CouchDB's error names are the HTTP server's to choose; a local peer reports the store's code.
            return WriteFailure(id: id, rev: rev, error: error.code.rawValue, reason: error.message, category: error.category)
        }
    }

    public var sendsLargeAttachmentsSeparately: Bool { true }

    public var receivesLargeAttachmentsSeparately: Bool { true }

    public func fetch(_ requests: [RevisionRequest], inlineAttachmentLimit: Int) async throws -> [FetchedRevision] {
        let results = try await store.bulkGet(
            requests.map { BulkGetRequest(id: $0.id, rev: $0.rev, attachmentsSince: $0.attachmentsSince) },
            inlineAttachmentLimit: inlineAttachmentLimit)
        return Self.fetched(results, for: requests)
    }

    public func attachment(documentID: String, rev: String, name: String, stub: JSONObject) async throws -> PeerAttachment {
        let content = try await store.attachmentContent(documentID: documentID, name: name, rev: rev)
        let info = content.info
        return PeerAttachment(
            contentType: info.contentType, encoding: info.encoding, length: info.length, digest: info.digest,
            revpos: info.revpos, pieces: AttachmentByteStream(content.storedBytes()))
    }

    public func receive(_ attachment: PeerAttachment, documentID: String, name: String) async throws -> JSONValue {
        let staged = try await store.stageAttachment(
            name, documentID: documentID, contentType: attachment.contentType, encoding: attachment.encoding,
            length: attachment.length, digest: attachment.digest, content: attachment.pieces)
        return staging.member(for: staged.withRevpos(attachment.revpos))
    }

    public func ensureFullCommit() async throws {}

    /// Our sequences are integers; a peer may have written them as numbers or strings.
    static func sequence(_ value: JSONValue) -> Int64 {
        switch value {
        case .number(let number): number.int64Value ?? 0
        case .string(let text): UpdateSequence.parse(text) ?? 0
        default: 0
        }
    }
}
