extension RevisionTree {
    /// `revision` and its ancestors, newest first, down to the oldest one kept after stemming; empty when
    /// the tree does not hold `revision`.
    ///
    /// ```swift
    /// tree.ancestry(of: try RevisionID(parsing: "3-cc")).map(\.description)   // ["3-cc", "2-bb", "1-aa"]
    /// ```
    public func ancestry(of revision: RevisionID) -> [RevisionID] {
        var result: [RevisionID] = []
        var next: RevisionID? = entries[revision] == nil ? nil : revision
        while let current = next {
            result.append(current)
            next = entries[current]?.parent
        }
        return result
    }

    /// CouchDB's `_revisions` for `revision`: `{"start": generation, "ids": [hash, parent's hash, …]}`,
    /// stopping at the stemmed root; `nil` when the tree does not hold `revision`.
    ///
    /// A replicated write sends this back; ``merge(path:deleted:revsLimit:documentID:)`` takes the same
    /// history as a path of revisions.
    public func revisionsJSON(for revision: RevisionID) -> JSONValue? {
        let path = ancestry(of: revision)
        guard !path.isEmpty else { return nil }
        return ["start": .number(JSONNumber(revision.generation)), "ids": .array(path.map { .string($0.hash) })]
    }

    /// CouchDB's `_revs_info` for `revision`: it and its ancestors, newest first, each `missing` when its
    /// body is not stored, else `deleted` when it is a deletion, else `available`; empty when the tree does
    /// not hold `revision`.
    ///
    /// `couch_db:doc_meta_info` asks whether a revision's body is missing before whether it is deleted:
    /// compaction drops every internal revision's body, deletions included, so a deletion the document was
    /// recreated after reads `deleted` until the database is compacted and `missing` from then on.
    public func revsInfo(for revision: RevisionID) -> [RevisionInfo] {
        ancestry(of: revision).compactMap { ancestor in
            guard let entry = entries[ancestor] else { return nil }
            let status: RevisionInfo.Status =
                !entry.bodyAvailable ? .missing : entry.deleted ? .deleted : .available
            return RevisionInfo(revision: ancestor, status: status)
        }
    }
}

extension RevisionTree {
    /// `revisions` in the order CouchDB's batched `_bulk_get` lists them (`fabric_open_revs`): the paths
    /// from each revision up to its root are merged into a tree, and its leaves are read as
    /// `couch_key_tree:get_all_leafs` reads them: the roots from last to first (by generation, then hash
    /// as stored), each depth first with children in stored-hash order. A revision the tree does not hold
    /// is a root of its own. A revision that is an ancestor of another one asked for is not a leaf of that
    /// tree, and CouchDB leaves it out; so does this.
    public func bulkGetOrder(_ revisions: [RevisionID]) -> [RevisionID] {
        var parents: [RevisionID: RevisionID] = [:]
        var nodes = Set<RevisionID>()
        for revision in revisions {
            let path = ancestry(of: revision)
            guard !path.isEmpty else {
                nodes.insert(revision)
                continue
            }
            for (child, parent) in zip(path, path.dropFirst()) { parents[child] = parent }
            nodes.formUnion(path)
        }
        var children: [RevisionID: [RevisionID]] = [:]
        for (child, parent) in parents { children[parent, default: []].append(child) }
        var result: [RevisionID] = []
        func collectLeaves(_ node: RevisionID) {
            guard let below = children[node] else { return result.append(node) }
            for child in below.sorted() { collectLeaves(child) }
        }
        for root in nodes.filter({ parents[$0] == nil }).sorted().reversed() { collectLeaves(root) }
        return result
    }
}
