/// One field of a Mango sort.
public struct SortField: Sendable, Hashable {
    /// The field's path.
    public var path: FieldPath
    /// Whether the field sorts descending.
    public var descending: Bool

    /// Creates a sort field.
    public init(_ path: FieldPath, descending: Bool = false) {
        self.path = path
        self.descending = descending
    }

    /// CouchDB's form: `{"field": "asc"|"desc"}`.
    public var json: JSONValue { .object(JSONObject([(path.description, .string(descending ? "desc" : "asc"))])) }
}

/// A Cloudant Query (`_find`) request: selector, sort, paging and projection.
///
/// ```swift
/// let request = try FindRequest(JSONValue(parsing: #"{"selector":{"age":{"$gt":20}},"sort":["age"],"limit":10}"#))
/// ```
///
/// ``init(_:)`` reads a `_find` body as CouchDB's `mango_opts` does (`FindRequest+Parsing.swift`).
public struct FindRequest: Sendable, Hashable {
    /// Which documents match.
    public var selector: MangoSelector
    /// The order of the results; empty means the order of the index used (by `_id` without one).
    public var sort: [SortField]
    /// At most this many documents (CouchDB's default is 25).
    public var limit: Int
    /// Skip this many matching documents first.
    public var skip: Int
    /// Return only these fields; `nil` returns whole documents.
    public var fields: [FieldPath]?
    /// Continue after the page this bookmark ended (from a previous result of the same query).
    public var bookmark: String?
    /// Add `_conflicts` to each document.
    public var conflicts: Bool
    /// Add execution statistics to the result.
    public var executionStats: Bool
    /// The index to use: a design document name, optionally with an index name.
    public var useIndex: [String]?
    /// Whether a `use_index` that cannot answer the query falls back to the best index that can (CouchDB's
    /// `allow_fallback`, default true).
    public var allowFallback: Bool
    /// Only documents of this partition (`partition:id` ids) of a partitioned database; `nil` queries the
    /// whole database with its global indexes.
    public var partition: String?
    /// CouchDB's read quorum. One node holds everything here, so it changes nothing but how `_explain`
    /// and `execution_stats` describe the reads (above 1, CouchDB reads documents at the coordinator).
    public var readQuorum: Int
    /// CouchDB's `update`: whether the index is brought up to date first. Indexes here are updated in the
    /// same transaction as the documents, so they are never behind; kept for `_explain`.
    public var update: Bool
    /// CouchDB's `stable`; kept for `_explain`.
    public var stable: Bool
    /// CouchDB's `stale: "ok"` (`stable` and no update); kept for `_explain`.
    public var staleOK: Bool
    /// What to do when no index serves the sort, which CouchDB refuses (`no_usable_index`). Not part of a
    /// `_find` body: the caller decides (the store sorts in memory; `cloudant serve` answers as CouchDB
    /// once the database has JSON indexes).
    public var unservedSort: UnservedSortPolicy

    /// What to do with a sort that no index serves.
    public enum UnservedSortPolicy: Sendable, Hashable {
        /// Sort the matches in memory (documents lacking a sort field are left out, as an index would
        /// leave them out).
        case sortInMemory
        /// Refuse as CouchDB does, with `no_usable_index`, once the database has a JSON index; a database
        /// without any is still sorted in memory.
        case refuseOnceIndexed
    }

    /// Creates a request.
    public init(
        selector: MangoSelector = .all, sort: [SortField] = [], limit: Int = 25, skip: Int = 0,
        fields: [FieldPath]? = nil, bookmark: String? = nil, conflicts: Bool = false, executionStats: Bool = false,
        useIndex: [String]? = nil, allowFallback: Bool = true, partition: String? = nil
    ) {
        self.selector = selector
        self.sort = sort
        self.limit = limit
        self.skip = skip
        self.fields = fields
        self.bookmark = bookmark
        self.conflicts = conflicts
        self.executionStats = executionStats
        self.useIndex = useIndex
        self.allowFallback = allowFallback
        self.partition = partition
        readQuorum = 1
        update = true
        stable = false
        staleOK = false
        unservedSort = .sortInMemory
    }
}
