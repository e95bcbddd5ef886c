internal import CloudantCore
internal import GRDB

extension DocumentStore {
    /// Inserts documents known to be new, in one transaction: the write path of bulk imports.
    ///
    /// ```swift
    /// let batch = try samples.map { try NewDocument(id: $0.id, body: $0.body) }
    /// let outcome = try await store.insertNew(batch)
    /// print(outcome.written, outcome.alreadyStored.count)
    /// ```
    ///
    /// Each document becomes what `bulkDocs` writes for a new id: a one-revision tree, the body inline, the
    /// next update sequence (so the changes feed and replication see it), and its entries in every Mango
    /// index, all in the same transaction. What it skips is the general path's per-document lookup and
    /// conflict handling: an id that is already stored, live or deleted, is left exactly as it is and
    /// listed in ``NewDocumentsOutcome/alreadyStored`` (where `bulkDocs` would report a conflict, or
    /// recreate a deleted document). So importing the same data twice writes nothing the second time.
    ///
    /// With `comparingExisting`, each already-stored live document's winning body is compared with the one
    /// offered (as JSON values: member order and number spelling aside), and those that differ are listed in
    /// ``NewDocumentsOutcome/differing`` with their revision and update sequence, so an importer can tell an
    /// unchanged record from a changed one and update only those. A deleted document never differs: it
    /// stays deleted. Without it (the default), nothing already stored is read.
    ///
    /// - Throws: `CloudantError` `.storeUnwritable` when the transaction fails; then nothing of the batch
    ///   was written.
    public func insertNew(_ documents: [NewDocument], comparingExisting: Bool = false) async throws -> NewDocumentsOutcome {
        guard !documents.isEmpty else { return NewDocumentsOutcome() }
        await trainDictionaries(before: documents)
        let cache = indexCache
        let now = options.now
        let validation = writeValidation()
        let outcome = try await write(.storeUnwritable) { db in
            let settings = try WriterSettings(db: db)
            var sequence = SequenceAllocator(latest: settings.latestSequence)
            var indexer = try IndexMaintainer(db: db, cache: cache, expiryField: settings.expiryField, now: now)
            var outcome = NewDocumentsOutcome()
            // Read once per transaction, as a writer reads them (`DocumentWriter.loadedValidationFunctions`).
            let functions = try validation?.functions(in: db) ?? []
            for document in documents {
                // Validation functions see a new document: no revision it replaces.
                if let validation, !functions.isEmpty, !DocumentID.isDesign(document.id),
                    try DocumentRecord.fetch(id: document.id, in: db) == nil
                {
                    let body = try IndexMaintainer.parse(document.bytes) ?? JSONObject()
                    try validation.check(
                        newDocument: DocumentWriter.validationDocument(
                            id: document.id, body: body, revisions: [], deleted: false, attachments: AttachmentTable()),
                        oldDocument: nil, functions: functions, in: db)
                }
                // A one-revision tree, encoded without building it (any revision limit keeps its one node).
                let inserted = try DocumentRecord.insertIfAbsent(
                    id: document.id, encodedTree: RevisionTree.encodedFirstRevision(hash: document.revision.hash, deleted: false),
                    deleted: false, seq: sequence.current + 1, kind: document.kind,
                    body: document.bytes, attachments: nil, in: db)
                guard inserted else {
                    outcome.alreadyStored.append(document.id)
                    if comparingExisting, let stored = try DocumentRecord.fetchWinner(id: document.id, in: db), !stored.deleted,
                        !Self.sameBody(stored.body, as: document)
                    {
                        outcome.differing.append(StoredDocumentState(id: document.id, rev: stored.rev, sequence: stored.seq))
                    }
                    continue
                }
                _ = sequence.next()
                try indexer.documentChanged(
                    rowID: db.lastInsertedRowID, id: document.id, body: document.body, previousBody: nil, newRow: true, in: db)
                outcome.written += 1
            }
            return outcome
        }
        if outcome.written > 0 { notifier.publish() }
        return outcome
    }

    /// Whether a stored body says what `document`'s does: the same bytes (the usual case: both were written
    /// by this path), else the same JSON value (a body written through the general path).
    private static func sameBody(_ stored: [UInt8]?, as document: NewDocument) -> Bool {
        guard let stored else { return false }
        if stored == document.bytes { return true }
        guard case .object(let object)? = try? JSONValue(parsing: stored) else { return false }
        return object == document.body
    }
}
