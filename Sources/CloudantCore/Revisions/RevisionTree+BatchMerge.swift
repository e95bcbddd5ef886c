extension RevisionTree {
    /// Merges the replicated revisions of one document that arrive together, as CouchDB's updater does with
    /// the revisions of one document in a `_bulk_docs` batch (`couch_db_updater:merge_rev_trees`): each path is
    /// aligned as ``RevisionTree/merge(path:deleted:revsLimit:documentID:)`` aligns it, and the tree is stemmed
    /// once, at the end.
    ///
    /// The merger keeps which revisions have children and how many leaves the tree has, so a path costs work
    /// in its own length, and a batch of paths costs the tree's size once plus the paths' lengths. (Merging
    /// them one at a time costs the whole tree per path: a batch of n conflicting revisions of one document
    /// was quadratic in n.) It also holds the tree to a bound on leaves: a path that would take the tree past
    /// it is refused before anything of it is merged.
    ///
    /// ```swift
    /// var merger = RevisionTree.BatchMerge(tree)
    /// for (path, deleted) in incoming {
    ///     if try merger.merge(path: path, deleted: deleted, maxLeaves: 1_000) { /* store the body of path[0] */ }
    /// }
    /// let merged = merger.finish(revsLimit: 1_000)
    /// if merged.changed { /* save merged.tree, drop the bodies of merged.stemmed */ }
    /// ```
    public struct BatchMerge: Sendable {
        /// The tree as merged so far (not yet stemmed).
        public private(set) var tree: RevisionTree
        /// The tree before the batch.
        private let original: RevisionTree
        /// Every revision that has at least one child.
        private var parents: Set<RevisionID>
        /// How many revisions have no child.
        public private(set) var leafCount: Int

        /// Starts a batch on `tree`: O(size of the tree).
        public init(_ tree: RevisionTree) {
            self.tree = tree
            original = tree
            parents = tree.parentSet()
            leafCount = tree.count - parents.count
        }

        /// Merges one path (newest first, as `_revisions` lists it) without stemming.
        ///
        /// - Parameters:
        ///   - path: The revisions from the newest back to the oldest the sender kept.
        ///   - deleted: Whether the path's newest revision is a deletion.
        ///   - maxLeaves: The most leaves the document may have; a path that would add leaves past it is refused.
        ///   - documentID: The document, named in errors.
        /// - Returns: Whether the caller must store the body of the path's newest revision: it is new, or it was
        ///   known only as an ancestor without a body.
        /// - Throws: `CloudantError.Code.invalidInput` for a malformed path (as
        ///   ``RevisionTree/merge(path:deleted:revsLimit:documentID:)``); `CloudantError.Code.tooManyLeaves`
        ///   when the document would have more than `maxLeaves` leaves. Nothing is merged when it throws.
        @discardableResult
        public mutating func merge(path: [RevisionID], deleted: Bool, maxLeaves: Int, documentID: String? = nil) throws -> Bool {
            try RevisionTree.validate(path: path, documentID: documentID)
            let added = leavesAdded(by: path)
            if added > 0, leafCount + added > maxLeaves {
                throw CloudantError(
                    .tooManyLeaves,
                    "The document would have \(leafCount + added) conflicting leaves; this store keeps at most "
                        + "\(maxLeaves) per document. Resolve its conflicts (delete the losing leaves) before sending "
                        + "more, or raise the bound.",
                    context: .init(documentID: documentID, revision: path[0].description, field: "_revisions"))
            }
            var needsBody = true
            if let known = tree.entries[path[0]] {
                needsBody = !known.bodyAvailable
                // An ancestor placeholder now gets its body, as in ``RevisionTree/merge(path:deleted:revsLimit:documentID:)``.
                if needsBody { tree.entries[path[0]] = Entry(parent: known.parent, deleted: deleted, bodyAvailable: true) }
            }
            // Oldest first, so that every new revision's parent is already in place.
            for index in path.indices.reversed() {
                let revision = path[index]
                let parent = index + 1 < path.count ? path[index + 1] : nil
                if var entry = tree.entries[revision] {
                    guard entry.parent == nil, let parent else { continue }
                    entry.parent = parent
                    tree.entries[revision] = entry
                    adopt(parent)
                } else {
                    tree.entries[revision] = Entry(parent: parent, deleted: index == 0 && deleted, bodyAvailable: index == 0)
                    leafCount += 1
                    if let parent { adopt(parent) }
                }
            }
            return needsBody
        }

        /// `parent` has a child now: it is no longer a leaf.
        private mutating func adopt(_ parent: RevisionID) {
            if parents.insert(parent).inserted { leafCount -= 1 }
        }

        /// How many leaves merging `path` adds (negative when it joins leaves to their history), computed without
        /// changing anything: the same walk as ``merge(path:deleted:maxLeaves:documentID:)``.
        private func leavesAdded(by path: [RevisionID]) -> Int {
            var delta = 0
            var newNodes: Set<RevisionID> = []
            var newlyParents: Set<RevisionID> = []
            var linked: Set<RevisionID> = []
            func adopt(_ parent: RevisionID) {
                guard !parents.contains(parent), newlyParents.insert(parent).inserted else { return }
                delta -= 1
            }
            for index in path.indices.reversed() {
                let revision = path[index]
                let parent = index + 1 < path.count ? path[index + 1] : nil
                if let entry = tree.entries[revision] {
                    guard entry.parent == nil, let parent, linked.insert(revision).inserted else { continue }
                    adopt(parent)
                } else if newNodes.insert(revision).inserted {
                    delta += 1
                    if let parent { adopt(parent) }
                }
            }
            return delta
        }

        /// What a batch came to.
        public struct Result: Sendable, Hashable {
            /// The merged and stemmed tree.
            public var tree: RevisionTree
            /// Whether it differs from the tree before the batch: give the document a new update sequence only
            /// when it does.
            public var changed: Bool
            /// Revisions that were in the tree before the batch and were stemmed away: delete what is stored for them.
            public var stemmed: [RevisionID]
        }

        /// Stems the merged tree to `revsLimit` once and reports the batch.
        public func finish(revsLimit: Int = RevisionTree.defaultRevsLimit) -> Result {
            var merged = tree
            let removed = merged.stem(to: revsLimit)
            let stemmed = removed.filter { original.entries[$0] != nil }
            return Result(tree: merged, changed: merged != original, stemmed: stemmed)
        }
    }
}
