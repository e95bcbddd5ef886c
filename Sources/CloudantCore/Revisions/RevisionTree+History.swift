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
    /// stopping at the stemmed root (spec §1.9); `nil` when the tree does not hold `revision`.
    ///
    /// A replicated write sends this back; ``merge(path:deleted:revsLimit:documentID:)`` takes the same
    /// history as a path of revisions.
    public func revisionsJSON(for revision: RevisionID) -> JSONValue? {
        let path = ancestry(of: revision)
        guard !path.isEmpty else { return nil }
        return ["start": .number(JSONNumber(revision.generation)), "ids": .array(path.map { .string($0.hash) })]
    }

    /// CouchDB's `_revs_info` for `revision`: it and its ancestors, newest first, each `deleted` when it is
    /// a deletion, else `available` when its body is stored, else `missing` (spec §1.9); empty when the
    /// tree does not hold `revision`.
    public func revsInfo(for revision: RevisionID) -> [RevisionInfo] {
        ancestry(of: revision).compactMap { ancestor in
            guard let entry = entries[ancestor] else { return nil }
            let status: RevisionInfo.Status =
                entry.deleted ? .deleted : entry.bodyAvailable ? .available : .missing
            return RevisionInfo(revision: ancestor, status: status)
        }
    }
}
