/// Chooses the index a `_find` uses, as CouchDB does (spec M-22 … M-26), and the key ranges to scan.
///
/// - A JSON index is usable when the selector requires every one of its fields (a condition other than
///   `$exists: false` at the top level, or in every branch of an `$or`), sort fields excepted: documents
///   lacking a field are not in the index, and they could not match anyway (M-7, M-22).
/// - Partial indexes are used only when `use_index` names them (M-24).
/// - Among usable JSON indexes: the most fields with indexable conditions, then one whose order serves the
///   sort, then the fewest fields, then by name (CouchDB's `less_overlap`, `too_many_fields`,
///   `alphabetically_comes_after`).
/// - Unlike CouchDB, a sort no index serves is not an error: the store sorts the matches itself.
///
/// ```swift
/// let plan = try QueryPlanner.plan(request, indexes: try await store.indexes())
/// ```
public enum QueryPlanner {
    /// Plans `request` over `indexes`.
    /// - Throws: ``CloudantError`` with ``QueryErrorKind/invalidIndex`` when `use_index` cannot be honoured
    ///   and `allow_fallback` is false, ``QueryErrorKind/noUsableIndex`` for `$text` without a text index,
    ///   ``QueryErrorKind/multipleTextIndexes`` when several could answer it.
    public static func plan(_ request: FindRequest, indexes: [IndexDefinition]) throws -> QueryPlan {
        if let search = request.selector.textSearch {
            return try textPlan(request, search: search, indexes: indexes)
        }
        let conjuncts = topLevelConditions(request.selector.root)
        let required = requiredFields(request.selector.root)
        let sortPaths = Set(request.sort.map(\.path))
        var candidates: [QueryPlan.Candidate] = []
        var usable: [(index: IndexDefinition, paths: [FieldPath], overlap: Int, servesSort: Bool)] = []
        for index in indexes where index.type == .json {
            let paths = index.fields.compactMap { try? FieldPath(parsing: $0.path) }
            let named = names(index, in: request.useIndex)
            var reasons: [String] = []
            if index.partialFilterSelector != nil && !named { reasons.append("is_partial") }
            let needed = paths.filter { !sortPaths.contains($0) && $0.description != "_id" && $0.description != "_rev" }
            if !needed.allSatisfy(required.contains) { reasons.append("field_mismatch") }
            if !reasons.isEmpty {
                candidates.append(QueryPlan.Candidate(index: index, usable: false, reasons: reasons, ranking: 0))
                continue
            }
            let overlap = paths.filter { path in conjuncts.contains { $0.path == path && isIndexable($0.condition) } }.count
            let ranges = columnRanges(paths, conjuncts)
            let servesSort = orderedScan(paths: paths, ranges: ranges, sort: request.sort) != nil
            usable.append((index, paths, overlap, servesSort))
        }
        usable.sort { a, b in
            if a.overlap != b.overlap { return a.overlap > b.overlap }
            if a.servesSort != b.servesSort { return a.servesSort }
            if a.paths.count != b.paths.count { return a.paths.count < b.paths.count }
            return (a.index.designDocumentID, a.index.name) < (b.index.designDocumentID, b.index.name)
        }

        var warnings: [String] = []
        var chosen = usable.first
        if let useIndex = request.useIndex {
            if let named = usable.first(where: { names($0.index, in: useIndex) }) {
                chosen = named
            } else {
                let label = "_design/" + (useIndex.first.map(IndexDefinition.strippingDesignPrefix) ?? "")
                guard request.allowFallback else {
                    throw QueryErrorKind.invalidIndex.error(
                        "\(label) specified by `use_index` could not be found or it is not suitable.", field: "use_index")
                }
                warnings.append("\(label) was not used because it does not contain a valid index for this query.")
            }
        } else if chosen == nil && !request.allowFallback {
            throw QueryErrorKind.invalidIndex.error("You must specify an index with the `use_index` parameter.", field: "use_index")
        }

        for (rank, entry) in usable.enumerated() {
            var reasons: [String] = []
            if let chosen, entry.index != chosen.index {
                let best = chosen
                if entry.overlap < best.overlap { reasons.append("less_overlap") }
                else if entry.paths.count > best.paths.count { reasons.append("too_many_fields") }
                else { reasons.append("alphabetically_comes_after") }
            }
            candidates.append(QueryPlan.Candidate(index: entry.index, usable: true, reasons: reasons, ranking: rank + 1))
        }
        candidates.append(
            QueryPlan.Candidate(
                index: nil, usable: true, reasons: chosen == nil ? [] : ["unfavored_type"],
                ranking: chosen == nil ? 1 : usable.count + 1))

        guard let chosen else {
            warnings.append("No matching index found, create an index to optimize query time.")
            let byID = request.sort.isEmpty || (request.sort.count == 1 && request.sort[0].path.description == "_id")
            let order = request.sort.isEmpty ? [SortField(FieldPath(["_id"]))] : request.sort
            return QueryPlan(
                access: .allDocuments, order: order, scanIsOrdered: byID, orderColumnOffset: 0, candidates: candidates,
                warnings: warnings)
        }
        let ranges = columnRanges(chosen.paths, conjuncts)
        let descending = chosen.index.fields.first?.order == .descending
        let order = request.sort.isEmpty ? chosen.paths.map { SortField($0, descending: descending) } : request.sort
        let offset = request.sort.isEmpty ? 0 : orderedScan(paths: chosen.paths, ranges: ranges, sort: request.sort)
        return QueryPlan(
            access: .json(chosen.index, ranges: ranges), order: order, scanIsOrdered: offset != nil,
            orderColumnOffset: offset ?? 0, candidates: candidates, warnings: warnings)
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
        let candidates = textIndexes.map { candidate in
            QueryPlan.Candidate(
                index: candidate, usable: candidate == index, reasons: candidate == index ? [] : ["excluded_by_user"],
                ranking: candidate == index ? 1 : 0)
        } + [QueryPlan.Candidate(index: nil, usable: false, reasons: ["needs_text_search"], ranking: 0)]
        return QueryPlan(
            access: .text(index, match: match), order: request.sort, scanIsOrdered: request.sort.isEmpty,
            orderColumnOffset: 0, candidates: candidates, warnings: [])
    }

    // MARK: - Selector analysis

    /// The `(path, condition)` leaves of the top-level `$and` (or the root itself).
    static func topLevelConditions(_ root: MangoSelector.Node) -> [(path: FieldPath, condition: MangoSelector.Condition)] {
        let nodes: [MangoSelector.Node]
        if case .and(let children) = root { nodes = children } else { nodes = [root] }
        return nodes.compactMap { node in
            if case .field(let path, let condition) = node { return (path, condition) }
            return nil
        }
    }

    /// Fields the selector requires to be present for any document to match (M-22).
    static func requiredFields(_ node: MangoSelector.Node) -> Set<FieldPath> {
        switch node {
        case .empty, .text: return []
        case .field(let path, .exists(false)): _ = path; return []
        case .field(let path, _): return path.segments.isEmpty ? [] : [path]
        case .and(let children): return children.reduce(into: Set()) { $0.formUnion(requiredFields($1)) }
        case .or(let children):
            guard let first = children.first else { return [] }
            return children.dropFirst().reduce(requiredFields(first)) { $0.intersection(requiredFields($1)) }
        }
    }

    /// CouchDB's indexable operators (M-23), plus `$exists: true`.
    static func isIndexable(_ condition: MangoSelector.Condition) -> Bool {
        switch condition {
        case .eq, .gt, .gte, .lt, .lte, .beginsWith, .exists(true): true
        default: false
        }
    }

    /// The key range each index column is confined to by the top-level conditions.
    static func columnRanges(
        _ paths: [FieldPath], _ conjuncts: [(path: FieldPath, condition: MangoSelector.Condition)]
    ) -> [KeyRange] {
        paths.map { path in
            conjuncts.filter { $0.path == path }.compactMap { KeyRange.of($0.condition) }
                .reduce(KeyRange.all) { $0.intersection($1) }
        }
    }

    /// The number of leading columns to skip for the index order to be exactly the sort order (then `_id`),
    /// or nil when it is not: the sort fields must be all the columns after some columns fixed by equality,
    /// in one direction.
    static func orderedScan(paths: [FieldPath], ranges: [KeyRange], sort: [SortField]) -> Int? {
        guard !sort.isEmpty, Set(sort.map(\.descending)).count == 1 else { return sort.isEmpty ? 0 : nil }
        let sortPaths = sort.map(\.path)
        var offset = 0
        while true {
            if Array(paths[offset...]) == sortPaths { return offset }
            guard offset < paths.count, ranges[offset].isSingleKey else { return nil }
            offset += 1
        }
    }

    /// Whether `use_index` (`["ddoc"]` or `["ddoc", "name"]`) names `index`.
    static func names(_ index: IndexDefinition, in useIndex: [String]?) -> Bool {
        guard let useIndex, let ddoc = useIndex.first else { return false }
        guard IndexDefinition.strippingDesignPrefix(ddoc) == (index.designDocument ?? index.name) else { return false }
        return useIndex.count < 2 || useIndex[1] == index.name
    }
}
