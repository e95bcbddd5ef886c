extension RevisionTree {
    /// Every leaf, best first: live leaves before deleted ones, then higher generation, then greater hash.
    /// The first is the ``winner``.
    ///
    /// This is what `open_revs=all` returns, tombstones included. ``leafNodes`` has their flags.
    public var leaves: [RevisionID] { leafNodes.map(\.revision) }

    /// Every leaf with its flags, best first.
    public var leafNodes: [Node] {
        let parents = parentSet()
        var result: [Node] = []
        for (revision, entry) in entries where !parents.contains(revision) {
            result.append(makeNode(revision, entry))
        }
        result.sort(by: Self.ranksBefore)
        return result
    }

    /// The winning revision: the leaf with the greatest `(not deleted, generation, hash)`,
    /// or `nil` for an empty tree. Every replica picks the same winner from the same tree.
    public var winner: RevisionID? { winningNode?.revision }

    /// The winning leaf with its flags, or `nil` for an empty tree.
    public var winningNode: Node? {
        // The greatest revision is a leaf (a child's generation is higher than its parent's), and a live one
        // ranks before every other leaf: most trees are decided here, with no set of parents to build.
        var greatest: (revision: RevisionID, entry: Entry)?
        for (revision, entry) in entries where greatest.map({ $0.revision < revision }) ?? true {
            greatest = (revision, entry)
        }
        if let greatest, !greatest.entry.deleted { return makeNode(greatest.revision, greatest.entry) }
        let parents = parentSet()
        var best: Node?
        for (revision, entry) in entries where !parents.contains(revision) {
            let candidate = makeNode(revision, entry)
            if let current = best, !Self.ranksBefore(candidate, current) { continue }
            best = candidate
        }
        return best
    }

    /// Whether the document is deleted: its winner is a deletion, so every leaf is.
    /// An empty tree is not deleted; it is missing.
    public var isDeleted: Bool { winningNode?.deleted ?? false }

    /// The live leaves other than the winner, best first: CouchDB's `_conflicts`.
    public var conflicts: [RevisionID] {
        leafNodes.dropFirst().filter { !$0.deleted }.map(\.revision)
    }

    /// The deleted leaves other than the winner, best first: CouchDB's `_deleted_conflicts`.
    public var deletedConflicts: [RevisionID] {
        leafNodes.dropFirst().filter(\.deleted).map(\.revision)
    }

    /// The leaves at or below `revision`, best first: what `open_revs=[…]&latest=true` returns for a
    /// revision that may have been edited since.
    ///
    /// A leaf returns itself; an internal revision returns every leaf descending from it; a revision the
    /// tree does not hold returns an empty array (report it as `{"missing": rev}`).
    ///
    /// ```swift
    /// tree.leaves(descendingFrom: try RevisionID(parsing: "3-cc"))   // [4-dd]
    /// ```
    public func leaves(descendingFrom revision: RevisionID) -> [RevisionID] {
        guard entries[revision] != nil else { return [] }
        let children = childrenIndex()
        var result: [Node] = []
        var pending = [revision]
        while let next = pending.popLast() {
            if let below = children[next] {
                pending.append(contentsOf: below)
            } else if let entry = entries[next] {
                result.append(makeNode(next, entry))
            }
        }
        result.sort(by: Self.ranksBefore)
        return result.map(\.revision)
    }

    /// Whether leaf `lhs` ranks before leaf `rhs` in winner order.
    static func ranksBefore(_ lhs: Node, _ rhs: Node) -> Bool {
        if lhs.deleted != rhs.deleted { return !lhs.deleted }
        return rhs.revision < lhs.revision
    }
}
