extension RevisionTree {
    /// Decides which revision an interactive write (`new_edits=true`) extends, following CouchDB.
    ///
    /// | Document | `rev` named | Result |
    /// |---|---|---|
    /// | never written (empty tree) | none | `nil`: the write is a new root `1-…` (a `1-` tombstone if deleting) |
    /// | never written | any | conflict |
    /// | live (winner not deleted) | a current leaf, live or deleted | that leaf |
    /// | live | none, unknown, stemmed or internal | conflict |
    /// | deleted (every leaf deleted) | none, not deleting | the deleted winner: recreation continues its branch |
    /// | deleted | none, deleting | conflict (deleting what is already deleted) |
    /// | deleted | any, even the deleted leaf | conflict (COUCHDB-292: recreate without `_rev`) |
    ///
    /// Mint the new revision as a child of the result (generation `parent.generation + 1`, or 1) and add
    /// it with ``addChild(_:of:deleted:revsLimit:documentID:)``:
    ///
    /// ```swift
    /// let parent = try tree.parentForInteractiveWrite(named: incoming.rev, deleting: incoming.deleted, documentID: id)
    /// let revision = RevisionID(generation: (parent?.generation ?? 0) + 1, hash: mintedHash)
    /// try tree.addChild(revision, of: parent, deleted: incoming.deleted)
    /// ```
    ///
    /// - Throws: `CloudantError.Code.conflict` in the cases above, with `documentID` and the named
    ///   revision in its context. The message starts with CouchDB's reason, "Document update conflict."
    ///   `CloudantError.Code.invalidInput` (field `_rev`) when the parent's generation is already
    ///   ``RevisionID/maximumGeneration``, so the child's could not be represented.
    public func parentForInteractiveWrite(
        named revision: RevisionID?, deleting: Bool, documentID: String
    ) throws -> RevisionID? {
        func conflict(_ advice: String) -> CloudantError {
            CloudantError(
                .conflict, "Document update conflict. \(advice)",
                context: .init(documentID: documentID, revision: revision?.description))
        }
        guard let winner = winningNode else {
            guard revision == nil else {
                throw conflict("The document does not exist; write it without a _rev to create it.")
            }
            return nil
        }
        if winner.deleted {
            guard revision == nil else {
                throw conflict("The document is deleted; write it again without a _rev to recreate it.")
            }
            guard !deleting else {
                throw conflict("The document is already deleted.")
            }
            try Self.requireRoomForChild(of: winner.revision, documentID: documentID)
            return winner.revision
        }
        guard let revision else {
            throw conflict("The document already exists; read it to get its current _rev and send that with the change.")
        }
        guard isLeaf(revision) else {
            throw conflict("The _rev sent is not a current revision; read the document again, reapply the change and retry.")
        }
        try Self.requireRoomForChild(of: revision, documentID: documentID)
        return revision
    }

    /// Refuses to extend a revision whose generation is already ``RevisionID/maximumGeneration`` (or above,
    /// in a file written before the bound existed): its child's generation would not be representable.
    static func requireRoomForChild(of parent: RevisionID, documentID: String?) throws {
        guard parent.generation >= RevisionID.maximumGeneration else { return }
        throw CloudantError(
            .invalidInput,
            "The document's revision generation \(parent.generation) is at the largest one allowed "
                + "(\(RevisionID.maximumGeneration)); it cannot be edited further. Copy its body to a new document id.",
            context: .init(documentID: documentID, revision: parent.description, field: "_rev"))
    }

    /// Adds `revision` as a child of `parent` (a current leaf, or `nil` to start an empty tree), marks its
    /// body available, then stems the tree.
    ///
    /// Call it with the parent ``parentForInteractiveWrite(named:deleting:documentID:)`` returned, so that
    /// the checks here only catch a tree that changed in between.
    ///
    /// - Parameters:
    ///   - revision: The new revision; its generation is one more than the parent's (1 for a new root).
    ///   - parent: The leaf it extends, or `nil` for the first revision of a document.
    ///   - deleted: Whether the new revision is a deletion.
    ///   - revsLimit: How many revisions each branch keeps; values below 1 are treated as 1.
    ///   - documentID: The document, named in errors.
    /// - Returns: The revisions stemmed away: delete whatever is stored for them.
    /// - Throws: `CloudantError.Code.invalidInput` when the generation does not follow the parent's or the
    ///   parent is at ``RevisionID/maximumGeneration``;
    ///   `CloudantError.Code.conflict` when `parent` is not a current leaf, `parent` is `nil` but the tree
    ///   is not empty, or `revision` is already in the tree.
    @discardableResult
    public mutating func addChild(
        _ revision: RevisionID, of parent: RevisionID?, deleted: Bool,
        revsLimit: Int = RevisionTree.defaultRevsLimit, documentID: String? = nil
    ) throws -> [RevisionID] {
        func conflict(_ advice: String) -> CloudantError {
            CloudantError(
                .conflict, "Document update conflict. \(advice)",
                context: .init(documentID: documentID, revision: revision.description))
        }
        if let parent { try Self.requireRoomForChild(of: parent, documentID: documentID) }
        let expected = (parent?.generation ?? 0) + 1
        guard revision.generation == expected else {
            throw CloudantError(
                .invalidInput,
                "A new revision's generation must be one more than its parent's (expected \(expected)). Mint it from the parent returned by parentForInteractiveWrite.",
                context: .init(documentID: documentID, revision: revision.description))
        }
        if let parent {
            guard isLeaf(parent) else {
                throw conflict("Its parent is no longer a current revision; read the document again and retry.")
            }
        } else {
            guard entries.isEmpty else {
                throw conflict("The document already exists; read it to get its current _rev and send that with the change.")
            }
        }
        guard entries[revision] == nil else {
            throw conflict("The revision already exists; read the document again and retry.")
        }
        entries[revision] = Entry(parent: parent, deleted: deleted, bodyAvailable: true)
        return stem(to: revsLimit)
    }
}
