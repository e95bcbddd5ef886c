internal import CloudantCore
internal import GRDB

// Replicated writes (`new_edits=false`): merged into the tree without conflict checks.
extension DocumentWriter {
    /// Merges the replicated revisions of one document, all those of a batch at once, as CouchDB's updater
    /// merges them: each aligned by its `_revisions`, the tree stemmed once and the document given one new
    /// update sequence, with work in the size of the tree once plus each revision's own (see
    /// `RevisionTree.BatchMerge`). A revision already in the tree is a silent no-op.
    ///
    /// Each revision is checked whole before it is merged, so one that fails (a malformed path, a missing
    /// stub, a design document CouchDB refuses, a leaf past ``maxLeaves``) leaves no trace and the others go
    /// through. On a document that exists already, a revision another one of the batch descends from is not
    /// a leaf once the batch is merged: like `couch_db:prep_and_validate_replicated_updates`, it is neither
    /// validated nor stored (it stays in the tree as an ancestor without a body) and counts as a success.
    /// - Returns: The failures, by position in `documents`.
    /// - Throws: Only what stops the whole transaction (storage errors, cancellation).
    mutating func writeReplicated(_ documents: [IncomingDocument], cancellation: CancellationSignal? = nil) throws
        -> [Int: CloudantError]
    {
        var failures: [Int: CloudantError] = [:]
        guard let id = documents.first?.id else {
            for index in documents.indices {
                failures[index] = CloudantError(.invalidInput, "A replicated document needs an _id.", context: .init(field: "_id"))
            }
            return failures
        }
        if partitioned {
            do {
                try DocumentPartition.validateDocumentID(id)
            } catch let error as CloudantError {
                for index in documents.indices { failures[index] = error }
                return failures
            }
        }
        let existing = try DocumentRecord.fetch(id: id, in: db)
        let validationFunctions = try loadedValidationFunctions()
        var merger = RevisionTree.BatchMerge(existing?.tree ?? RevisionTree())
        // CouchDB keeps every revision of a batch for a new document, and only the merged leaves for an existing one.
        let ancestorsInBatch: Set<RevisionID> =
            existing == nil ? [] : Set(documents.flatMap { ($0.revisions ?? []).dropFirst() })
        var revisions: [RevisionID: NewRevision] = [:]
        for (index, incoming) in documents.enumerated() {
            try cancellation?.check()
            do {
                if let revision = try mergeReplicated(
                    incoming, id: id, existing: existing, into: &merger, pending: revisions, ancestorsInBatch: ancestorsInBatch,
                    validationFunctions: validationFunctions)
                {
                    revisions[revision.0] = revision.1
                }
            } catch let error as CloudantError {
                failures[index] = error.adding { $0.documentID = $0.documentID ?? id }
            }
        }
        let merged = merger.finish(revsLimit: revsLimit)
        guard merged.changed else { return failures }
        let kept = revisions.filter { merged.tree.contains($0.key) }
        for revision in kept.values {
            for (digest, content) in revision.blobs { try AttachmentStorage.save(digest: digest, content: content, in: db) }
        }
        try persist(id: id, existing: existing, tree: merged.tree, revisions: kept, forgotten: merged.stemmed)
        return failures
    }

    /// Checks one replicated revision and merges its path; returns its body when it must be stored.
    private func mergeReplicated(
        _ incoming: IncomingDocument, id: String, existing: DocumentRecord?, into merger: inout RevisionTree.BatchMerge,
        pending: [RevisionID: NewRevision], ancestorsInBatch: Set<RevisionID>, validationFunctions: [JSONObject]
    ) throws -> (RevisionID, NewRevision)? {
        let path: [RevisionID]
        if let revisions = incoming.revisions {
            path = revisions
        } else if let rev = incoming.rev {
            path = [rev]
        } else {
            throw CloudantError(
                .invalidInput, "When `new_edits: false`, the document needs `_rev` or `_revisions` specified",
                context: .init(documentID: id, field: "_rev"))
        }
        let newest = path[0]
        try checkDesignDocument(incoming, id: id)
        // A revision already in the tree, leaf or internal, is a silent no-op; so is one the batch makes internal.
        if merger.tree.contains(newest) || ancestorsInBatch.contains(newest) { return nil }

        // Stubs resolve against the nearest ancestor in the incoming path whose body we have: stored
        // (`make_first_doc_on_disk`), or, for a document new to the store, brought by this batch. (CouchDB
        // refuses a new document's stubs outright, failing the whole request with `missing_stub`; a batch
        // that carries the attachment in an earlier revision of it is kept whole here.)
        var base = AttachmentTable()
        for ancestor in path.dropFirst() where merger.tree.node(ancestor)?.bodyAvailable == true {
            base = try pending[ancestor]?.attachments ?? attachments(of: ancestor, in: existing)
            break
        }
        let (table, blobs) = try resolveAttachments(
            incoming.attachments ?? [:], order: incoming.attachmentOrder, encoded: nil, against: base, generation: newest.generation, interactive: false,
            documentID: id)
        if let validation, !validationFunctions.isEmpty, !DocumentID.isDesign(id) {
            // Validated before it is merged (as CouchDB's updater does), so a refused revision leaves no trace.
            // The revision it replaces is the nearest ancestor in its path whose body is stored; a document new
            // to the store is validated against none (`fun() -> nil end`), whatever the batch brought.
            var oldDocument: JSONObject?
            if let existing, let ancestor = path.dropFirst().first(where: { existing.tree.node($0)?.bodyAvailable == true }) {
                oldDocument = try revisionForValidation(ancestor, of: existing)
            }
            let newDocument = Self.validationDocument(
                id: id, body: incoming.body, revisions: path, deleted: incoming.deleted, attachments: table)
            try validation.check(newDocument: newDocument, oldDocument: oldDocument, functions: validationFunctions, in: db)
        }
        guard try merger.merge(path: path, deleted: incoming.deleted, maxLeaves: maxLeaves, documentID: id) else { return nil }
        let revision = NewRevision(
            body: JSONValue.object(incoming.body).jsonBytes(), parsed: incoming.body,
            kind: EntityDocumentFormat.kindName(in: incoming.body), attachments: table, blobs: blobs)
        return (newest, revision)
    }
}
