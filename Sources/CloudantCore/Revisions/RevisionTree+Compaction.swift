extension RevisionTree {
    /// Marks every internal revision's body as no longer stored, as compaction does; leaf
    /// bodies are always kept.
    ///
    /// ```swift
    /// for revision in tree.markBodiesMissingExceptLeaves() { /* delete the stored body of revision */ }
    /// ```
    ///
    /// - Returns: The revisions whose bodies were available and may now be deleted, newest first.
    @discardableResult
    public mutating func markBodiesMissingExceptLeaves() -> [RevisionID] {
        let parents = parentSet()
        var dropped: [RevisionID] = []
        for revision in parents {
            guard var entry = entries[revision], entry.bodyAvailable else { continue }
            entry.bodyAvailable = false
            entries[revision] = entry
            dropped.append(revision)
        }
        return dropped.sorted(by: >)
    }

    /// Removes the named leaves and every ancestor no remaining leaf descends from, as `_purge` does.
    ///
    /// Revisions that are not leaves of this tree are ignored, like CouchDB; an ancestor shared with a
    /// remaining branch stays. Purging every leaf empties the tree (the document is forgotten).
    ///
    /// ```swift
    /// let before = Set(tree.allRevisions)
    /// let purged = tree.purge([conflictLeaf])                 // what `_purge` reports
    /// let gone = before.subtracting(tree.allRevisions)        // purged leaves and their lone ancestors
    /// ```
    ///
    /// - Returns: The leaves purged, newest first. Their ancestors that no other leaf needs are removed
    ///   too; compare ``allRevisions`` before and after to delete whatever is stored for those.
    @discardableResult
    public mutating func purge(_ revisions: [RevisionID]) -> [RevisionID] {
        let parents = parentSet()
        let targets = Set(revisions.filter { entries[$0] != nil && !parents.contains($0) })
        guard !targets.isEmpty else { return [] }

        var kept = Set<RevisionID>(minimumCapacity: entries.count)
        for (revision, _) in entries where !parents.contains(revision) && !targets.contains(revision) {
            var next: RevisionID? = revision
            while let current = next, kept.insert(current).inserted {
                next = entries[current]?.parent
            }
        }
        entries = entries.filter { kept.contains($0.key) }
        return targets.sorted(by: >)
    }
}
