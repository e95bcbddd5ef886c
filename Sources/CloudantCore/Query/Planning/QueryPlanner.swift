/// Chooses the index a `_find` uses exactly as CouchDB 3.5 does (`mango_idx:get_usable_indexes`,
/// `mango_cursor:create`, `mango_cursor_view:choose_best_index`), so the same query reads the same index
/// and `_explain` tells the same story.
///
/// - The indexes considered are the special `_all_docs` index and the JSON indexes; partial indexes only
///   when `use_index` names them; on a partitioned database, the partitioned indexes for a partition query
///   and the global ones otherwise.
/// - A JSON index is usable when the selector requires every one of its columns but the sort fields,
///   `_id` and `_rev`, and its order serves the sort (the sort fields follow columns fixed by `$eq`).
///   `_all_docs` is usable unsorted, or sorted by `_id` with an indexable condition on `_id`.
/// - `use_index` picks among the usable indexes; when it names none of them the others are used (with a
///   warning) unless `allow_fallback` is false.
/// - A JSON index beats `_all_docs`; among JSON indexes, the one whose leading columns cover most of the
///   indexable fields, then the one with fewer columns, then by design document and name.
///
/// One deliberate difference: when no index serves the sort, CouchDB refuses the query
/// (`no_usable_index`); here the query is planned as if unsorted and the matches are sorted in memory
/// (``QueryPlan/unsortedFallbackReason``), unless ``FindRequest/unservedSort`` asks for CouchDB's
/// refusal (``QueryPlan/sortRefusal``).
///
/// ```swift
/// let plan = try QueryPlanner.plan(request, indexes: try await store.indexes())
/// ```
public enum QueryPlanner {
    /// Plans `request` over `indexes`.
    ///
    /// - Parameters:
    ///   - request: The query.
    ///   - indexes: The database's index definitions.
    ///   - databaseIsPartitioned: Whether the database is partitioned (indexes default to partitioned there,
    ///     and `request.partition` is allowed).
    ///   - listingCandidates: Whether to analyse every index the plan does not use for
    ///     ``QueryPlan/candidates`` (what `_explain` shows). A query that only runs the plan leaves it out:
    ///     ranking every other index costs more than choosing one.
    /// - Throws: `CloudantError` with ``QueryErrorKind/queryParseError`` for a partition query on a
    ///   database that is not partitioned, ``QueryErrorKind/invalidIndex`` when `use_index` cannot be
    ///   honoured and `allow_fallback` is false, ``QueryErrorKind/noUsableIndex`` for `$text` without a text
    ///   index, ``QueryErrorKind/multipleTextIndexes`` when several could answer it.
    public static func plan(
        _ request: FindRequest, indexes: [IndexDefinition], databaseIsPartitioned: Bool = false,
        listingCandidates: Bool = true
    ) throws -> QueryPlan {
        if request.partition != nil, !databaseIsPartitioned {
            throw QueryErrorKind.queryParseError.error(
                "`partition` parameter is not supported on this db", field: "partition")
        }
        if let search = request.selector.textSearch {
            return try textPlan(request, search: search, indexes: indexes)
        }
        let context = Context(request: request, indexes: indexes, databaseIsPartitioned: databaseIsPartitioned)
        let strict = try context.analyse(ignoringSort: false)
        let candidates = listingCandidates ? context.candidates(strict) : []
        guard strict.usable.isEmpty else { return try context.plan(strict, candidates: candidates, fallbackReason: nil) }
        // CouchDB: no_usable_index. This store plans as if unsorted and sorts in memory, unless the request
        // wants CouchDB's refusal.
        let reason =
            switch (databaseIsPartitioned, request.partition != nil) {
            case (false, _): "No index exists for this sort, try indexing by the sort fields."
            case (true, true): "No partitioned index exists for this sort, try indexing by the sort fields."
            case (true, false): "No global index exists for this sort, try indexing by the sort fields."
            }
        var plan = try context.plan(context.analyse(ignoringSort: true), candidates: candidates, fallbackReason: reason)
        if request.unservedSort == .refuseOnceIndexed, indexes.contains(where: { $0.type == .json }) {
            plan.sortRefusal = QueryErrorKind.noUsableIndex.error(reason, field: "sort")
        }
        return plan
    }

    // MARK: - Text

    private static func textPlan(_ request: FindRequest, search: JSONValue, indexes: [IndexDefinition]) throws -> QueryPlan {
        let textIndexes = indexes.filter { $0.type == .text }
        var choices = textIndexes.filter { $0.partialFilterSelector == nil }
        if let useIndex = request.useIndex {
            let named = textIndexes.filter { names($0, in: useIndex) }
            if !named.isEmpty || !request.allowFallback { choices = named }
        }
        guard let index = choices.first else {
            throw QueryErrorKind.noUsableIndex.error(
                "$text needs a text index; create one with type \"text\".", field: "$text")
        }
        guard choices.count == 1 else {
            throw QueryErrorKind.multipleTextIndexes.error(
                "Several text indexes could answer $text; name one with use_index.", field: "use_index")
        }
        let match = try TextSearchQuery.ftsMatch(search, fields: index.fields.map(\.path))
        let candidates =
            textIndexes.filter { $0 != index }.map {
                IndexCandidate(index: $0, usable: true, reason: "excluded_by_user", ranking: 2, covering: nil)
            } + [IndexCandidate(index: nil, usable: false, reason: "needs_text_search", ranking: 1, covering: nil)]
        return QueryPlan(
            access: .text(index, match: match), isEmpty: false, descending: request.sort.first?.descending ?? false,
            order: request.sort, scanIsOrdered: request.sort.isEmpty, isCovering: false, candidates: candidates,
            unsortedFallbackReason: nil, warnings: [], sortRefusal: nil)
    }

    /// Whether `use_index` (`["ddoc"]` or `["ddoc", "name"]`) names `index`.
    static func names(_ index: IndexDefinition, in useIndex: [String]?) -> Bool {
        guard let useIndex, let ddoc = useIndex.first else { return false }
        guard IndexDefinition.strippingDesignPrefix(ddoc) == (index.designDocument ?? index.name) else { return false }
        return useIndex.count < 2 || useIndex[1] == index.name
    }
}
