/// How a `_find` runs: which index, which key range, in which order, and why.
///
/// Made by ``QueryPlanner`` as CouchDB's planner would choose; the store executes it and `_explain` shows
/// it.
public struct QueryPlan: Sendable {
    /// Where the candidates come from.
    public enum Access: Sendable {
        /// Every document in `_id` order (CouchDB's special `_all_docs` index), over the range of `_id`.
        case allDocuments(IndexRange)
        /// A JSON index, over the ranges of its leading columns (CouchDB's composite prefix).
        case json(IndexDefinition, ranges: [IndexRange])
        /// A text index, searched with an FTS5 query.
        case text(IndexDefinition, match: String)
    }

    /// The chosen access path.
    public var access: Access
    /// Whether the selector can match nothing here (an empty range, or the top-level `{"$or": []}`
    /// quirk), so nothing is scanned.
    public var isEmpty: Bool
    /// Whether the scan runs in descending key order (a descending sort).
    public var descending: Bool
    /// The order results come in: the request's sort when it is sorted in memory, else the scan's key
    /// order (the index's columns, or `_id`); empty for a text search (relevance order).
    public var order: [SortField]
    /// Whether the scan already yields rows in the result order (ties by `_id`), so execution can stop
    /// after a page instead of sorting every match.
    public var scanIsOrdered: Bool
    /// Whether the index holds every field the query reads (the requested `fields` and the selector's), so
    /// documents can be made from the index entries (CouchDB's covering index).
    public var isCovering: Bool
    /// CouchDB's analysis of every other index (`index_candidates`); empty when the plan was made without
    /// them (``QueryPlanner/plan(_:indexes:databaseIsPartitioned:listingCandidates:)``).
    public var candidates: [IndexCandidate]
    /// Set when CouchDB would refuse the query (`no_usable_index`: no index serves the sort). This store
    /// answers it anyway, planned as if unsorted and sorted in memory; `_explain` still shows CouchDB's
    /// answer (no index) and this reason.
    public var unsortedFallbackReason: String?
    /// Advice for the result's `warning`, before execution adds its own.
    public var warnings: [String]
    /// CouchDB's `no_usable_index`, when no index serves the sort and the request's
    /// ``FindRequest/unservedSort`` says to refuse: `_find` throws it, `_explain` shows no index.
    public var sortRefusal: CloudantError?

    /// The chosen index, nil for `_all_docs`.
    public var index: IndexDefinition? {
        switch access {
        case .allDocuments: nil
        case .json(let index, _), .text(let index, _): index
        }
    }
}

/// One index CouchDB considered and did not choose, with its analysis (`index_candidates` of `_explain`).
public struct IndexCandidate: Sendable {
    /// The index; nil is `_all_docs`.
    public var index: IndexDefinition?
    /// Whether it could answer the query.
    public var usable: Bool
    /// The first reason it was not chosen: `is_partial`, `scope_mismatch`, `excluded_by_user`,
    /// `unfavored_type`, `field_mismatch`, `sort_order_mismatch`, `needs_text_search`, `less_overlap`,
    /// `too_many_fields` or `alphabetically_comes_after`.
    public var reason: String
    /// Its rank: 1 is the best of the rest.
    public var ranking: Int
    /// Whether it would cover the requested fields (`nil` for an index that is not a JSON index).
    public var covering: Bool?
}
