extension RevisionTree {
    /// Forgets old history: keeps the newest `limit` revisions of every leaf's history.
    ///
    /// A revision survives when some leaf below it is fewer than `limit` generations deeper, and keeps its
    /// link to its parent whenever the parent survives too; a revision whose parent is removed becomes a root.
    /// So a history can reach further back than `limit` through an ancestor that a shorter sibling branch
    /// keeps. Generations never change and leaves are never removed. This is `couch_key_tree:stem/2` as
    /// CouchDB has had it since 2.2 (which replaced "cut every root-to-leaf path to `limit`, re-merge the
    /// pieces", the rule PouchDB kept, where such a link was cut), computed without walking the paths.
    ///
    /// ```swift
    /// tree.stem(to: 2)   // 1-a → 2-b → 3-c becomes 2-b → 3-c and returns [1-a]
    /// ```
    ///
    /// - Parameter limit: The `revs_limit`; values below 1 are treated as 1.
    /// - Returns: The revisions removed, newest first. Stemmed revisions are forgotten: `_revs_diff`
    ///   reports them missing again.
    @discardableResult
    public mutating func stem(to limit: Int) -> [RevisionID] {
        let limit = max(1, limit)
        // No path can be longer than the span of generations; most trees stop here in O(n).
        var lowest = Int.max
        var highest = Int.min
        for revision in entries.keys {
            lowest = min(lowest, revision.generation)
            highest = max(highest, revision.generation)
        }
        guard !entries.isEmpty, highest - lowest + 1 > limit else { return [] }
        if let chain = linearChain(from: lowest, to: highest) { return stem(chain, to: limit) }

        // distance[r] = generations from r down to its nearest leaf. Children have higher generations,
        // so visiting newest first settles each revision before its parent is reached.
        let newestFirst = entries.keys.sorted { $0.generation > $1.generation }
        var distance: [RevisionID: Int] = [:]
        distance.reserveCapacity(entries.count)
        for revision in newestFirst {
            let own = distance[revision] ?? 0
            distance[revision] = own
            if let parent = entries[revision]?.parent {
                distance[parent] = min(distance[parent] ?? Int.max, own + 1)
            }
        }

        var removed: [RevisionID] = []
        for revision in newestFirst {
            let own = distance[revision] ?? 0
            if own >= limit {
                entries[revision] = nil
                removed.append(revision)
            } else if let parent = entries[revision]?.parent, (distance[parent] ?? 0) >= limit {
                entries[revision]?.parent = nil
            }
        }
        return removed.sorted(by: >)
    }

    /// The revisions of a tree that is one unbroken history (a revision per generation from `lowest` to
    /// `highest`, each but the first the child of the one before), oldest first; nil for any other tree.
    /// Most documents' trees are one history, and an update that passes the revs limit stems one of them.
    private func linearChain(from lowest: Int, to highest: Int) -> [RevisionID]? {
        guard entries.count == highest - lowest + 1 else { return nil }
        var chain = [RevisionID?](repeating: nil, count: entries.count)
        for revision in entries.keys {
            let position = revision.generation - lowest
            guard chain[position] == nil else { return nil }
            chain[position] = revision
        }
        // One revision per generation; the history is unbroken when each names the one before as its parent.
        let ordered = chain.map { $0! }
        for position in ordered.indices.dropFirst() where entries[ordered[position]]?.parent != ordered[position - 1] {
            return nil
        }
        return ordered
    }

    /// ``stem(to:)`` of a tree that is one history, `chain` oldest first: the newest `limit` revisions stay,
    /// the oldest of them becomes the root. The same result as the general computation, without sorting.
    private mutating func stem(_ chain: [RevisionID], to limit: Int) -> [RevisionID] {
        let cut = chain.count - limit
        entries[chain[cut]]?.parent = nil
        for revision in chain[..<cut] { entries[revision] = nil }
        return chain[..<cut].reversed()
    }
}
