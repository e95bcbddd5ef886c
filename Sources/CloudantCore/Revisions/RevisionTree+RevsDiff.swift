/// What one document's `_revs_diff` entry reports (spec D-49, D-50).
public struct RevisionDiff: Sendable, Hashable {
    /// The requested revisions the tree does not hold, in request order without repeats. Stemmed
    /// revisions count as missing again.
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
    /// Which of `revisions` the tree lacks, for `POST /db/_revs_diff` (spec D-49, D-50).
    ///
    /// An internal revision counts as present. For a document never seen (an empty tree) every revision
    /// is missing and there are no possible ancestors.
    ///
    /// ```swift
    /// let diff = tree.revsDiff([try RevisionID(parsing: "2-b"), try RevisionID(parsing: "3-c")])
    /// diff.json   // {"missing": ["3-c"], "possible_ancestors": ["2-b"]}
    /// ```
    public func revsDiff(_ revisions: [RevisionID]) -> RevisionDiff {
        var seen = Set<RevisionID>()
        let missing = revisions.filter { entries[$0] == nil && seen.insert($0).inserted }
        guard let highest = missing.map(\.generation).max() else {
            return RevisionDiff(missing: [], possibleAncestors: [])
        }
        let ancestors = leaves.filter { $0.generation < highest }
        return RevisionDiff(missing: missing, possibleAncestors: ancestors)
    }
}
