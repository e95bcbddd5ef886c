/// The ceilings a node puts on how many rows one view or `_all_docs` query may ask for, as CouchDB's
/// `[query_server_config]` `query_limit` and `partition_query_limit` set them.
///
/// CouchDB's `apply_limit` gives a query that names no `limit` the ceiling as its limit, and refuses one that
/// names a larger limit with `query_parse_error` "Limit is too large, must not exceed N". A query of a
/// partitioned view, or of a partition's `_all_docs`, is held to ``partitionQuery``; any other to ``query``.
/// Both default to CouchDB's `infinity`, which is ``ViewQuery/maximumLimit``.
///
/// ```swift
/// let limits = QueryLimits(query: 10_000)
/// let rows = try await store.queryView(designDocument: "stats", view: "by_day", limits: limits)
/// ```
public struct QueryLimits: Sendable, Hashable {
    /// `query_limit`: the ceiling of a query that is not held to a partition.
    public var query: Int
    /// `partition_query_limit`: the ceiling of a query of a partitioned view or of a partition's `_all_docs`.
    public var partitionQuery: Int

    /// Ceilings of `query` and `partitionQuery` rows (CouchDB's `infinity` when left out).
    public init(query: Int = ViewQuery.maximumLimit, partitionQuery: Int = ViewQuery.maximumLimit) {
        self.query = query
        self.partitionQuery = partitionQuery
    }

    /// CouchDB's defaults: no ceiling below ``ViewQuery/maximumLimit``.
    public static let couchDBDefaults = QueryLimits()

    /// The most index rows a Mango query's scan reads: ``query``, or nil for CouchDB's `infinity`.
    ///
    /// CouchDB's Mango names no `limit` for the view it scans (its own `limit` counts matches, not rows) and
    /// asks to be held to `query_limit` even in a partition (`ignore_partition_query_limit`), so its scan
    /// gets `query_limit` from `apply_limit`.
    public var mangoIndexRowLimit: Int? { query >= ViewQuery.maximumLimit ? nil : query }

    /// The limit a query runs with: the ceiling when `requested` is nil, `requested` when it is within it.
    ///
    /// - Parameters:
    ///   - requested: The query's `limit`, nil when it named none.
    ///   - partitioned: Whether the query is held to a partition.
    /// - Returns: nil when no limit applies (no `limit` asked for and no ceiling below CouchDB's).
    /// - Throws: `CloudantError` with ``QueryErrorKind/queryParseError``: "Limit is too large, must not
    ///   exceed N" when `requested` is above the ceiling.
    public func limit(_ requested: Int?, partitioned: Bool) throws -> Int? {
        let ceiling = partitioned ? partitionQuery : query
        guard let requested else { return ceiling >= ViewQuery.maximumLimit ? nil : ceiling }
        guard requested <= ceiling else { throw ViewQuery.parseError("Limit is too large, must not exceed \(ceiling)") }
        return requested
    }
}
