public import CloudantCore

extension DocumentStore {
    /// Writes several documents in one transaction, all or none: the first document that cannot be written
    /// (a stale `_rev`, an id that exists, a bad body) rolls the whole batch back and is thrown.
    ///
    /// ``bulkDocs(_:newEdits:)`` is CouchDB's `_bulk_docs`, where each document succeeds or fails on its own;
    /// this is what a change spanning documents needs (an object graph saved with its inverse relations, a
    /// delete that cascades), so a reader never sees half of it.
    ///
    /// ```swift
    /// let written = try await store.writeAtomically([
    ///     ["_id": "recipe-1", "_rev": "1-…", "CDTISEntityName": "Recipe", "ingredients": []],
    ///     ["_id": "ingredient-9", "_rev": "2-…", "_deleted": true],
    /// ])
    /// ```
    /// - Returns: One result per document, in order.
    /// - Throws: `CloudantError` naming the failing document (`documentID`, `itemIndex`):
    ///   `.conflict` for a missing or stale `_rev` or an id that exists, `.invalidInput` for a malformed
    ///   document; nothing was written.
    @discardableResult
    public func writeAtomically(_ documents: [JSONObject]) async throws -> [WriteResult] {
        let incoming = try documents.enumerated().map { index, object in
            do {
                let parsed = try IncomingDocument(object)
                if let id = parsed.id, DocumentID.isLocal(id) {
                    throw CloudantError(
                        .invalidInput, "Local documents are not written atomically with others; use putLocal.",
                        context: .init(documentID: id, field: "_id"))
                }
                return parsed
            } catch let error as CloudantError {
                throw error.adding {
                    $0.itemIndex = index
                    $0.documentID = $0.documentID ?? object["_id"]?.stringValue
                }
            }
        }
        let setup = interactiveWriterSetup()
        let prepared = await PreparedWrite.prepareAll(incoming, compression: setup.compression)
        let results = try await write(.storeUnwritable) { db in
            var writer = try setup.writer(in: db)
            let results = try prepared.enumerated().map { index, document in
                do {
                    return try writer.writeInteractive(document)
                } catch let error as CloudantError {
                    throw error.adding {
                        $0.itemIndex = index
                        $0.documentID = $0.documentID ?? document.incoming.id
                    }
                }
            }
            try writer.finish()
            return results
        }
        notifier.publish()
        return results
    }
}
