/// What one document's `_revs_diff` entry reports.
public struct RevisionDiff: Sendable, Hashable {
    /// The requested revisions the tree does not hold, in CouchDB's order (see
    /// ``RevisionTree/revsDiff(_:)``). Stemmed revisions count as missing again.
    public let missing: [RevisionID]
    /// Leaves whose generation is lower than the highest missing one, best first: ancestors the sender can
    /// use for `atts_since`. Empty when nothing is missing.
    public let possibleAncestors: [RevisionID]

    /// Creates a diff.
    public init(missing: [RevisionID], possibleAncestors: [RevisionID]) {
        self.missing = missing
        self.possibleAncestors = possibleAncestors
    }

    /// Whether nothing is missing, in which case `_revs_diff` leaves the document out of its answer.
    public var isEmpty: Bool { missing.isEmpty }

    /// The CouchDB form, `{"missing": […], "possible_ancestors": […]}`, without `possible_ancestors` when
    /// there are none.
    public var json: JSONValue {
        var object: JSONObject = ["missing": .array(missing.map { .string($0.description) })]
        if !possibleAncestors.isEmpty {
            object["possible_ancestors"] = .array(possibleAncestors.map { .string($0.description) })
        }
        return .object(object)
    }
}

extension RevisionTree {
    /// Which of `revisions` the tree lacks, for `POST /db/_revs_diff`.
    ///
    /// An internal revision counts as present. For a document never seen (an empty tree) every revision
    /// is missing, in request order, and there are no possible ancestors. Otherwise the missing revisions
    /// come in the order CouchDB's `couch_key_tree:find_missing` leaves them: the request sorted, then
    /// walked down each root of the tree (roots and children in stored-key order), each revision found
    /// dropped and the ones below a branch's start moved ahead. Possible ancestors are the leaves, best
    /// first, below the highest missing generation.
    ///
    /// ```swift
    /// let diff = tree.revsDiff([try RevisionID(parsing: "2-b"), try RevisionID(parsing: "3-c")])
    /// diff.json   // {"missing": ["3-c"], "possible_ancestors": ["2-b"]}
    /// ```
    public func revsDiff(_ revisions: [RevisionID]) -> RevisionDiff {
        guard !isEmpty else { return RevisionDiff(missing: revisions, possibleAncestors: []) }
        let children = childrenIndex()
        var search = revisions.sorted()
        for root in roots {
            let impossible = search.prefix { $0.generation < root.generation }
            let possible = Array(search.dropFirst(impossible.count))
            search = Array(impossible) + missing(from: possible, at: root.generation, among: [root][...], children: children)
        }
        guard let highest = search.map(\.generation).max() else {
            return RevisionDiff(missing: [], possibleAncestors: [])
        }
        return RevisionDiff(missing: search, possibleAncestors: leaves.filter { $0.generation < highest })
    }

    /// CouchDB's `find_missing_simple`: `keys` less the revisions found in `nodes` (siblings at generation
    /// `generation`) and below them, keys of lower generations kept in front.
    private func missing(
        from keys: [RevisionID], at generation: Int, among nodes: ArraySlice<RevisionID>,
        children: [RevisionID: [RevisionID]]
    ) -> [RevisionID] {
        guard !keys.isEmpty else { return [] }
        guard let node = nodes.first else { return keys }
        let impossible = keys.prefix { $0.generation < generation }
        var possible = Array(keys.dropFirst(impossible.count))
        if let found = possible.firstIndex(of: node) { possible.remove(at: found) }
        let below = missing(from: possible, at: generation + 1, among: (children[node] ?? [])[...], children: children)
        return Array(impossible) + missing(from: below, at: generation, among: nodes.dropFirst(), children: children)
    }
}
