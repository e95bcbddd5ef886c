extension RevisionTree {
    /// How a merged path relates to the tree it joined.
    public enum MergeOutcome: Sendable, Hashable {
        /// The path extended an existing leaf, or started an empty tree: a normal edit.
        case newLeaf
        /// The path added a sibling under a revision that already had children, or a new disjoint root:
        /// the document now has (another) conflict.
        case newBranch
        /// The path's newest revision was already in the tree (as a leaf or an internal node).
        case alreadyKnown
    }

    /// Everything the storage layer needs to know after a merge.
    public struct MergeResult: Sendable, Hashable {
        /// How the path related to the tree.
        public let outcome: MergeOutcome
        /// Whether the tree changed at all: new revisions, re-grown history, a restored body or stemming.
        /// Give the document a new update sequence only when it did.
        public let changed: Bool
        /// Whether the caller must store the body of the path's newest revision: it is new, or it was known
        /// only as an ancestor without a body.
        public let needsBody: Bool
        /// Revisions that were in the tree before the merge and were stemmed away by it: delete
        /// whatever is stored for them.
        public let stemmed: [RevisionID]
    }

    /// Merges a linear history into the tree without any conflict check, then stems it, as
    /// CouchDB's `couch_key_tree:merge` does. This is how replicated writes (`new_edits=false`) are stored.
    ///
    /// The path is aligned by revision: known revisions are kept, unknown ones are added under their
    /// parent in the path. If no revision of the path is known it becomes a new disjoint root. A known
    /// root whose parent the path names is re-attached (history re-grown, then stemmed again). Merging a
    /// path twice changes nothing the second time, and the result does not depend on the order in which
    /// paths are merged as long as nothing is stemmed.
    ///
    /// ```swift
    /// // _revisions {"start": 3, "ids": ["c", "b", "a"]} with _deleted false:
    /// let path = try [RevisionID(parsing: "3-c"), RevisionID(parsing: "2-b"), RevisionID(parsing: "1-a")]
    /// let result = try tree.merge(path: path, deleted: false)
    /// if result.needsBody { /* store the body of 3-c */ }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The revision and its ancestors, newest first, with consecutive generations (the
    ///     `_revisions` of a replicated document, or just its `_rev`).
    ///   - deleted: Whether the newest revision is a deletion (`_deleted`).
    ///   - revsLimit: How many revisions each branch keeps; values below 1 are treated as 1.
    ///   - documentID: The document, named in errors.
    /// - Throws: `CloudantError.Code.invalidInput` with field `_revisions` when the path is empty, its
    ///   generations are not consecutive, it reaches generation 0 or below, or its newest generation is
    ///   above ``RevisionID/maximumGeneration``.
    @discardableResult
    public mutating func merge(
        path: [RevisionID], deleted: Bool, revsLimit: Int = RevisionTree.defaultRevsLimit, documentID: String? = nil
    ) throws -> MergeResult {
        try Self.validate(path: path, documentID: documentID)
        let head = path[0]
        var changed = false
        let outcome: MergeOutcome
        var needsBody = false

        if let known = entries[head] {
            outcome = .alreadyKnown
            // An ancestor placeholder now gets its body; the body's value wins over "missing", as in
            // CouchDB's key tree, so merging stays order-independent.
            if !known.bodyAvailable {
                entries[head] = Entry(parent: known.parent, deleted: deleted, bodyAvailable: true)
                needsBody = true
                changed = true
            }
        } else {
            if let attachment = path.dropFirst().first(where: { entries[$0] != nil }) {
                outcome = entries.values.contains { $0.parent == attachment } ? .newBranch : .newLeaf
            } else {
                outcome = entries.isEmpty ? .newLeaf : .newBranch
            }
            needsBody = true
            changed = true
        }

        // Oldest first, so that every new revision's parent is already in place.
        var added: [RevisionID] = []
        var regrown: [(revision: RevisionID, parent: RevisionID)] = []
        for index in path.indices.reversed() {
            let revision = path[index]
            let parent = index + 1 < path.count ? path[index + 1] : nil
            if var entry = entries[revision] {
                if entry.parent == nil, let parent {
                    entry.parent = parent
                    entries[revision] = entry
                    regrown.append((revision, parent))
                }
            } else {
                entries[revision] = Entry(parent: parent, deleted: index == 0 && deleted, bodyAvailable: index == 0)
                added.append(revision)
            }
        }

        // History re-grown above a stemmed root is usually cut again by the same stemming; only what
        // survives it is a change.
        let removed = stem(to: revsLimit)
        let addedSet = Set(added)
        let stemmed = removed.filter { !addedSet.contains($0) }
        changed = changed || !stemmed.isEmpty || added.contains { entries[$0] != nil }
            || regrown.contains { entries[$0.revision]?.parent == $0.parent }
        return MergeResult(outcome: outcome, changed: changed, needsBody: needsBody, stemmed: stemmed)
    }

    /// Checks that `path` is a newest-first history with consecutive generations starting at 1 or above.
    static func validate(path: [RevisionID], documentID: String?) throws {
        func invalid(_ message: String, _ revision: RevisionID?) -> CloudantError {
            CloudantError(
                .invalidInput, message,
                context: .init(documentID: documentID, revision: revision?.description, field: "_revisions"))
        }
        guard let head = path.first else {
            throw invalid("A revision path needs at least one revision. Send the document's _rev or _revisions.", nil)
        }
        guard head.generation <= RevisionID.maximumGeneration else {
            throw invalid(
                "A revision path's generation must be at most \(RevisionID.maximumGeneration), the largest one allowed.", head)
        }
        guard head.generation - (path.count - 1) >= 1 else {
            throw invalid(
                "A revision path must not reach generation 0 or below; generation 0 is only for _local documents. Send _revisions with \"start\" at least the number of ids.",
                head)
        }
        for (offset, revision) in path.enumerated() where revision.generation != head.generation - offset {
            throw invalid(
                "A revision path must list consecutive generations, newest first. Send _revisions as {\"start\": N, \"ids\": [newest … oldest]}.",
                revision)
        }
    }
}
