/// How a `_find` runs: which index, which key ranges SQL scans, in which order, and why (spec §3.8–3.9).
///
/// Made by ``QueryPlanner``; the store executes it and `_explain` shows it.
public struct QueryPlan: Sendable {
    /// Where the candidates come from.
    public enum Access: Sendable {
        /// Every document, in `_id` order (CouchDB's special `_all_docs` index), narrowed by any `_id` range.
        case allDocuments
        /// A JSON index, scanned over a key range per column (a column without conditions is `.all`).
        case json(IndexDefinition, ranges: [KeyRange])
        /// A text index, searched with an FTS5 query.
        case text(IndexDefinition, match: String)
    }

    /// One index considered, with CouchDB's analysis (spec M-27 `index_candidates`).
    public struct Candidate: Sendable {
        /// The index; nil is `_all_docs`.
        public var index: IndexDefinition?
        /// Whether it can answer the query.
        public var usable: Bool
        /// Why it was not chosen (CouchDB's reason codes: `field_mismatch`, `is_partial`, `less_overlap`, …).
        public var reasons: [String]
        /// Its place in the ranking (1 is the chosen index; 0 when unusable).
        public var ranking: Int
    }

    /// The chosen access path.
    public var access: Access
    /// The order results come in: the request's sort, or else the index's order (its fields then `_id`,
    /// spec M-16), or `_id` order for `_all_docs`; empty for a text search (relevance order).
    public var order: [SortField]
    /// Whether the scan already yields rows in ``order`` (ties by `_id`), so execution can stop after a
    /// page instead of sorting every match.
    public var scanIsOrdered: Bool
    /// How many leading index columns ``order`` skips (columns fixed by equality).
    public var orderColumnOffset: Int
    /// Every index considered.
    public var candidates: [Candidate]
    /// Advice for the result's `warning` (spec M-20).
    public var warnings: [String]

    /// The chosen index, nil for `_all_docs`.
    public var index: IndexDefinition? {
        switch access {
        case .allDocuments: nil
        case .json(let index, _), .text(let index, _): index
        }
    }
}
