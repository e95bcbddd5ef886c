public import CloudantCore
internal import GRDB

/// One document's part of a batched `open_revs` read (``DocumentStore/openRevisions(_:latest:)``).
public struct OpenRevisionsRequest: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// Which revisions.
    public var which: OpenRevisions
    /// How each revision is read (`revs`, attachments, `atts_since`, …).
    public var options: ReadOptions
    /// The order of the answer.
    public var order: Order

    /// The order CouchDB answers in, which differs between its two ways of reading revisions.
    public enum Order: Sendable, Hashable {
        /// `GET …?open_revs=`: the revisions found by generation and hash, then the missing ones.
        case sorted
        /// `_bulk_get`: the leaves of the tree of their paths (`RevisionTree.bulkGetOrder(_:)`).
        case bulkGet
    }

    /// Creates a request.
    public init(id: String, _ which: OpenRevisions, options: ReadOptions = ReadOptions(), order: Order = .sorted) {
        self.id = id
        self.which = which
        self.options = options
        self.order = order
    }

    /// The requested revisions parsed (nil for every leaf), after checking the id.
    func parsedRevisions() throws -> [RevisionID]? {
        try DocumentID.validate(id)
        switch which {
        case .all: return nil
        case .revisions(let revs): return try revs.map { try RevisionID(parsing: $0) }
        }
    }
}

extension DocumentStore {
    /// Reads the `open_revs` of many documents in one read transaction, as `_bulk_get` serves a
    /// replicator: one consistent snapshot, and no per-document hop to the database.
    ///
    /// ```swift
    /// let answers = try await store.openRevisions([OpenRevisionsRequest(id: "walk", .all)], latest: true)
    /// ```
    /// - Returns: One result per request, in order: the revisions as ``openRevisions(id:_:latest:options:)``
    ///   returns them, or the typed error it would throw for that document alone (a bad id or revision,
    ///   or `.notFound` for an unknown document asked for `.all`).
    /// - Throws: Only when the database itself cannot be read.
    public func openRevisions(
        _ requests: [OpenRevisionsRequest], latest: Bool = false
    ) async throws -> [Result<[OpenRevisionResult], CloudantError>] {
        let parsed = requests.map { request in Result { try request.parsedRevisions() }.mapError(Self.cloudantError) }
        return try await read(.storeUnreadable) { db in
            try zip(requests, parsed).map { request, revisions -> Result<[OpenRevisionResult], CloudantError> in
                switch revisions {
                case .failure(let error): return .failure(error)
                case .success(let requested):
                    do {
                        return .success(try Self.openRevisions(request, requested: requested, latest: latest, in: db))
                    } catch let error as CloudantError {
                        return .failure(error)
                    }
                }
            }
        }
    }

    /// The revisions of one document, inside a read (shared by the single and the batched forms).
    static func openRevisions(
        _ request: OpenRevisionsRequest, requested: [RevisionID]?, latest: Bool, in db: Database
    ) throws -> [OpenRevisionResult] {
        guard let record = try DocumentRecord.fetch(id: request.id, in: db) else {
            if let requested { return requested.map { .missing($0.description) } }
            throw CloudantError(.notFound, "missing", context: .init(documentID: request.id))
        }
        let assembler = DocumentAssembler(db: db, record: record)
        // Revisions opened by name: no `_revs_info`, `_conflicts` or `_local_seq` (`couch_db:open_doc_revs_int`).
        let options = request.options.metadataFree
        var revisions: [RevisionID] = []
        for rev in requested ?? record.tree.leaves {
            let targets = latest ? record.tree.leaves(descendingFrom: rev) : [rev]
            revisions.append(contentsOf: targets.isEmpty ? [rev] : targets)
        }
        var seen = Set<RevisionID>()
        var found: [(RevisionID, JSONObject)] = []
        var missing: [RevisionID] = []
        for rev in revisions where seen.insert(rev).inserted {
            if let document = try assembler.document(rev: rev, options: options) {
                found.append((rev, document))
            } else {
                missing.append(rev)
            }
        }
        switch request.order {
        case .sorted:
            // CouchDB's order (fabric sorts the replies): the revisions found, by generation and
            // then hash as stored (different revisions of one document never share both), then the missing.
            return found.sorted { $0.0 < $1.0 }.map { .ok($0.1) } + missing.sorted().map { .missing($0.description) }
        case .bulkGet:
            let documents = Dictionary(found, uniquingKeysWith: { first, _ in first })
            return record.tree.bulkGetOrder(found.map(\.0) + missing).map { rev in
                documents[rev].map { .ok($0) } ?? .missing(rev.description)
            }
        }
    }

    private static func cloudantError(_ error: any Error) -> CloudantError {
        error as? CloudantError ?? CloudantError(.invalidInput, "\(error)")
    }
}
