public import CloudantCore

extension DocumentStore {
    /// Writes one document: a new document without `_rev`, or an edit naming the leaf it edits in `_rev`.
    ///
    /// ```swift
    /// let first = try await store.put(["_id": "walk", "minutes": 20])
    /// let second = try await store.put(["_id": "walk", "_rev": .string(first.rev), "minutes": 25])
    /// ```
    /// `_local/` ids are written as local documents (see ``putLocal(id:body:rev:)``).
    /// - Throws: `CloudantError` `.conflict` when `_rev` is missing for an existing document or is not a
    ///   current leaf; `.invalidInput` for a bad id, revision or body; `.missingStub` for a stub naming an
    ///   attachment the parent lacks; `.documentValidation` for an unknown `_` member.
    @discardableResult
    public func put(_ document: JSONObject) async throws -> WriteResult {
        try await put(try IncomingDocument(document))
    }

    /// Writes one document already split into metadata and body: the form a multipart upload arrives in,
    /// whose attachments may be bytes that JSON cannot carry (gzip-encoded parts).
    /// - Throws: as ``put(_:)-(JSONObject)``, and `.attachmentDigestMismatch` when a part's bytes do not
    ///   match the digest sent with them.
    @discardableResult
    public func put(_ incoming: IncomingDocument) async throws -> WriteResult {
        if let id = incoming.id, DocumentID.isLocal(id) {
            return try await write(.storeUnwritable) { db in
                try LocalDocumentRecord.write(
                    id: id, body: incoming.body, rev: incoming.rev?.description, deleted: incoming.deleted, in: db)
            }
        }
        // Mint and serialise before taking the writer.
        let setup = interactiveWriterSetup()
        let prepared = PreparedWrite(incoming, compression: setup.compression)
        return try await write(.storeUnwritable) { db in
            var writer = try setup.writer(in: db)
            let result = try writer.writeInteractive(prepared)
            try writer.finish()
            return result
        }.notifying(notifier)
    }

    /// Deletes a document by writing a tombstone child of `rev`.
    /// - Throws: `CloudantError` `.conflict` when `rev` is not a current leaf; `.notFound` "missing" when the
    ///   document was never written and "deleted" when its winner is already a tombstone, whatever `rev`
    ///   names, as `chttpd_db`'s `DELETE` opens the document before it deletes it.
    @discardableResult
    public func delete(id: String, rev: String) async throws -> WriteResult {
        if DocumentID.isLocal(id) { return try await deleteLocal(id: id, rev: rev) }
        try DocumentID.validate(id)
        let winnerDeleted = try await read(.storeUnreadable) { db in try DocumentRecord.fetch(id: id, in: db)?.deleted }
        guard let winnerDeleted else { throw CloudantError(.notFound, "missing", context: .init(documentID: id, revision: rev)) }
        guard !winnerDeleted else { throw CloudantError(.notFound, "deleted", context: .init(documentID: id)) }
        return try await put(["_id": .string(id), "_rev": .string(rev), "_deleted": true])
    }

    /// Writes a batch of documents in one transaction, like CouchDB's `_bulk_docs`.
    ///
    /// With `newEdits` (the default) each document is an interactive write and gets its own result; a
    /// document that fails (a conflict, a bad id) does not stop the others. With `newEdits: false` each
    /// document is a replicated revision merged into its tree, and only failures are returned, as
    /// CouchDB 3 does.
    /// - Throws: `CloudantError` only when the transaction itself fails (then nothing was written).
    public func bulkDocs(_ documents: [JSONValue], newEdits: Bool = true) async throws -> [BulkDocsResult] {
        try await writeBatch(.json(documents), newEdits: newEdits, allOrNothing: false, enqueue: nil)
    }

    /// Writes a batch of documents as ``bulkDocs(_:newEdits:)`` does (interactive writes), and queues each
    /// revision written for `remote` as a ``PendingWrite`` in the same transaction: what a repository does
    /// with writes the remote cannot take now, for documents without an entity type.
    ///
    /// ```swift
    /// let results = try await store.bulkDocs([["_id": "reading-1", "bpm": 62]], enqueueingFor: "http://127.0.0.1:5984/vitals")
    /// ```
    /// - Throws: as ``bulkDocs(_:newEdits:)``; refused documents are reported per document and not queued.
    public func bulkDocs(_ documents: [JSONValue], enqueueingFor remote: String) async throws -> [BulkDocsResult] {
        try await writeBatch(.json(documents), newEdits: true, allOrNothing: false, enqueue: remote)
    }

    /// Writes a batch of documents already split into metadata and body, as ``bulkDocs(_:newEdits:)`` does.
    ///
    /// With `allOrNothing`, the batch is one unit: the first document that fails (a conflict, a missing stub)
    /// rolls the whole transaction back and is thrown, so either every document is written or none is
    /// (CouchDB 1's `all_or_nothing`, which migrations need: a document moved to a new id and the tombstone
    /// left at its old id must commit together).
    /// - Throws: `CloudantError` when the transaction fails, or with `allOrNothing` the first document's
    ///   error (its `itemIndex` and `documentID` set); then nothing was written.
    public func bulkDocs(
        parsed incoming: [IncomingDocument], newEdits: Bool = true, allOrNothing: Bool = false
    ) async throws -> [BulkDocsResult] {
        try await writeBatch(.documents(incoming), newEdits: newEdits, allOrNothing: allOrNothing, enqueue: nil)
    }

    /// The `_bulk_docs` transaction; with `enqueue`, each interactive revision written (not a local
    /// document, not a refused one) is queued for that remote in the same transaction.
    ///
    /// Validation is all or nothing, as in CouchDB: one malformed document rejects the batch.
    /// Conflicts and missing stubs, found while writing, are reported per document.
    private func writeBatch(
        _ source: PreparationPipeline.Source, newEdits: Bool, allOrNothing: Bool, enqueue remote: String?
    ) async throws -> [BulkDocsResult] {
        // Interactive writes mint their revisions and serialise their bodies off the writer's path: a small
        // batch before it takes the writer; a large one in a pipeline whose helpers start now (splitting
        // JSON documents too), so a batch waiting for the writer is prepared meanwhile and the writer's
        // transaction overlaps the rest.
        let compression = options.attachmentCompression
        let indexes = newEdits ? IndexSnapshot.lastKnown(in: indexCache) : nil
        let pipeline =
            newEdits && source.count >= PreparationPipeline.minimumBatch
            ? PreparationPipeline(source, compression: compression, indexes: indexes) : nil
        pipeline?.startHelpers()
        defer { pipeline?.abandon() }
        let entries =
            pipeline == nil
            ? try await Self.entries(source, newEdits: newEdits, compression: compression, indexes: indexes) : []
        let setup = interactiveWriterSetup()
        let now = setup.now()
        // Cancelling the task (its client went away, the server shuts down) stops the transaction between two
        // documents and rolls it back: nothing was answered, so nothing is lost.
        let signal = CancellationSignal()
        let results = try await withTaskCancellationHandler {
            try await write(.storeUnwritable, long: source.count >= PreparationPipeline.minimumBatch) { db in
                var writer = try setup.writer(in: db, preparedAgainst: indexes)
                var listed = entries.makeIterator()
                var pipelined = pipeline?.makeCursor()
                var results: [(index: Int, result: BulkDocsResult)] = []
                // Replicated revisions are merged per document, all of a document's at once (CouchDB's updater
                // groups them too), in the order each document first appears.
                var replicated: [String?: [(index: Int, document: IncomingDocument)]] = [:]
                var replicatedOrder: [String?] = []
                var index = 0
                // A document that cannot be split throws out of the transaction: nothing of the batch is written.
                while let entry = try listed.next() ?? pipelined?.next() {
                    defer { index += 1 }
                    try signal.check()
                    let document = entry.document
                    do {
                        switch entry {
                        case .local(let local):
                            results.append(
                                (index, .ok(
                                    try LocalDocumentRecord.write(
                                        id: local.id ?? "", body: local.body, rev: local.rev?.description,
                                        deleted: local.deleted, in: db))))
                        case .interactive(let ready):
                            let written = try writer.writeInteractive(ready)
                            results.append((index, .ok(written)))
                            if let remote {
                                let action: PendingWrite.Action = document.deleted ? .remove : document.rev == nil ? .store : .update
                                let queued = PendingWriteRecord.New(
                                    documentID: written.id, rev: written.rev, action: action,
                                    kind: EntityDocumentFormat.kindName(in: document.body))
                                _ = try PendingWriteRecord.append([queued], remote: remote, at: now, in: db)
                            }
                        case .replicated(let incoming):
                            if replicated[incoming.id] == nil { replicatedOrder.append(incoming.id) }
                            replicated[incoming.id, default: []].append((index, incoming))
                        }
                    } catch let error as CloudantError {
                        let failure = error.adding { $0.documentID = document.id }
                        if allOrNothing { throw failure.adding { $0.itemIndex = index } }
                        results.append((index, .failure(id: document.id, error: failure)))
                    }
                }
                for id in replicatedOrder {
                    let group = replicated[id] ?? []
                    let failures = try writer.writeReplicated(group.map(\.document), cancellation: signal)
                    for (position, error) in failures.sorted(by: { $0.key < $1.key }) {
                        let (index, document) = group[position]
                        let failure = error.adding { $0.documentID = document.id }
                        if allOrNothing { throw failure.adding { $0.itemIndex = index } }
                        results.append((index, .failure(id: document.id, error: failure)))
                    }
                }
                try writer.finish()
                return results.sorted { $0.index < $1.index }.map(\.result)
            }
        } onCancel: {
            signal.cancel()
        }
        notifier.publish()
        return results
    }

    /// A batch too small for a pipeline, or of replicated revisions: split, checked and prepared (on every
    /// core) before the transaction.
    private static func entries(
        _ source: PreparationPipeline.Source, newEdits: Bool, compression: AttachmentCompression, indexes: IndexSnapshot?
    ) async throws -> [PreparationPipeline.Entry] {
        let incoming: [IncomingDocument]
        switch source {
        case .documents(let documents): incoming = documents
        case .json(let values):
            incoming = try values.enumerated().map { index, value in try IncomingDocument(batchMember: value, at: index) }
        }
        let isLocal = incoming.map { $0.id.map(DocumentID.isLocal) ?? false }
        guard newEdits else {
            // A replicated revision without its revision is refused with the whole batch, as CouchDB does.
            if let index = incoming.indices.first(where: { incoming[$0].rev == nil && !isLocal[$0] }) {
                throw CloudantError(
                    .invalidInput, "When `new_edits: false`, the document needs `_rev` or `_revisions` specified",
                    context: .init(documentID: incoming[index].id, field: "_rev", itemIndex: index))
            }
            return zip(incoming, isLocal).map { document, local in local ? .local(document) : .replicated(document) }
        }
        let interactive = zip(incoming, isLocal).filter { !$1 }.map(\.0)
        var prepared = await PreparedWrite.prepareAll(interactive, compression: compression, indexes: indexes).makeIterator()
        return zip(incoming, isLocal).map { document, local in
            if !local, let ready = prepared.next() { .interactive(ready) } else { .local(document) }
        }
    }
}

extension WriteResult {
    /// Tells observers of live changes that a write committed, then returns the result.
    func notifying(_ notifier: ChangeNotifier) -> WriteResult {
        notifier.publish()
        return self
    }
}

extension IncomingDocument {
    /// Document `index` of a batch, split into metadata and body; errors name its position and id.
    init(batchMember value: JSONValue, at index: Int) throws {
        guard case .object(let object) = value else {
            throw CloudantError(.invalidInput, "Document must be a JSON object", context: .init(itemIndex: index))
        }
        do {
            try self.init(object)
        } catch let error as CloudantError {
            throw error.adding {
                $0.itemIndex = index
                $0.documentID = $0.documentID ?? object["_id"]?.stringValue
            }
        }
    }
}
