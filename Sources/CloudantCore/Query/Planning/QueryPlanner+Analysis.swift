extension QueryPlanner {
    /// One planning run: the request, the indexes, and the steps of CouchDB's planner over them.
    struct Context {
        let request: FindRequest
        let root: MangoSelector.Node
        let sortFields: [String]
        /// `_all_docs` and every JSON index (text indexes only answer `$text`).
        let all: [PlannedIndex]
        /// Those without a partial filter.
        let global: [PlannedIndex]
        /// The considered ones (global or named by `use_index`) of the query's scope: partitioned indexes
        /// for a partition query, global ones otherwise (`_all_docs` serves both).
        let scoped: [PlannedIndex]
        /// The fields every matching document has (asked once per index).
        let requiredFields: SelectorAnalysis.RequiredFields
        /// Whether the selector is a text search (only a text index answers it).
        let isTextSearch: Bool

        init(request: FindRequest, indexes: [IndexDefinition], databaseIsPartitioned: Bool) {
            self.request = request
            root = request.selector.root
            requiredFields = SelectorAnalysis.requiredFields(root)
            isTextSearch = SelectorAnalysis.isTextSearch(root)
            sortFields = request.sort.map(\.path.description)
            all = [.special] + indexes.filter { $0.type == .json }.map(PlannedIndex.json)
            let global = all.filter { !$0.isPartial }
            self.global = global
            let named = all.filter { $0.isNamed(by: request.useIndex) }
            let considered = global + named.filter { !global.contains($0) }
            scoped = considered.filter { index in
                guard let definition = index.definition else { return true }
                return definition.isPartitioned(inPartitionedDatabase: databaseIsPartitioned) == (request.partition != nil)
            }
        }

        /// What CouchDB's planner decided.
        struct Analysis {
            /// Each scoped index with whether it is usable and why not.
            var usability: [(index: PlannedIndex, usable: Bool, reasons: [String])]
            /// The usable ones.
            var usable: [PlannedIndex]
            /// Those handed to the cursor (`use_index`'s choice, or every usable index).
            var filtered: [PlannedIndex]
            /// Those of the type that answers (JSON indexes before `_all_docs`).
            var ofType: [PlannedIndex]
            /// ``ofType`` ranked, best first.
            var ranked: [RankedIndex]
        }

        /// Runs CouchDB's usability check, `use_index` filter and ranking; `ignoringSort` relaxes the sort
        /// order check (this store's answer to a sort no index serves).
        /// - Throws: ``QueryErrorKind/invalidIndex`` when `use_index` names no usable index and
        ///   `allow_fallback` is false.
        func analyse(ignoringSort: Bool) throws -> Analysis {
            let usability = scoped.map { index in
                let (usable, reasons) = isUsable(index, ignoringSort: ignoringSort)
                return (index: index, usable: usable, reasons: reasons)
            }
            let usable = usability.filter(\.usable).map(\.index)
            let named = usable.filter { $0.isNamed(by: request.useIndex) }
            var filtered = named
            if named.isEmpty {
                guard request.allowFallback || (request.useIndex == nil && usable.count > 1) else {
                    throw QueryPlanner.invalidIndexError(request.useIndex)
                }
                filtered = usable
            }
            let json = filtered.filter { $0 != .special }
            let ofType = json.isEmpty ? filtered.filter { $0 == .special } : json
            return Analysis(usability: usability, usable: usable, filtered: filtered, ofType: ofType, ranked: rank(ofType))
        }

        /// `is_usable/3` of `mango_idx_view` and `mango_idx_special`.
        private func isUsable(_ index: PlannedIndex, ignoringSort: Bool) -> (Bool, [String]) {
            let sort = ignoringSort ? [] : sortFields
            var reasons: [String] = []
            switch index {
            case .special:
                guard !sort.isEmpty else { return (true, []) }
                if !SelectorAnalysis.indexableFields(root).contains("_id") { reasons.append("field_mismatch") }
                if !["_id"].starts(with: sort) { reasons.append("sort_order_mismatch") }
            case .json:
                let columns = index.columns
                let required = columns.filter { !sortFields.contains($0) && $0 != "_id" && $0 != "_rev" }
                if isTextSearch { reasons.append("needs_text_search") }
                if !required.allSatisfy(requiredFields.contains) { reasons.append("field_mismatch") }
                if !canUseSort(columns[...], sort[...]) { reasons.append("sort_order_mismatch") }
            }
            return (reasons.isEmpty, reasons)
        }

        /// Whether the index order serves the sort: the sort fields are a prefix of the columns left after
        /// leading columns fixed by `$eq` (`can_use_sort/3`).
        private func canUseSort(_ columns: ArraySlice<String>, _ sort: ArraySlice<String>) -> Bool {
            guard let first = sort.first else { return true }
            guard let column = columns.first else { return false }
            if column == first { return columns.starts(with: sort) }
            guard SelectorAnalysis.isConstantField(root, column) else { return false }
            return canUseSort(columns.dropFirst(), sort)
        }

        /// `composite_indexes/2` and `choose_best_index/1`: each index's leading columns found among the
        /// indexable fields; fewest left out first, then fewest columns, then by design document and name.
        private func rank(_ indexes: [PlannedIndex]) -> [RankedIndex] {
            var fieldRanges = IndexRange.fieldRanges(root)
            if indexes == [.special] {
                // `_all_docs` falls back to the whole `_id` range, from null up.
                fieldRanges.append((field: "_id", range: .range(lower: .gt(.json(.null)), upper: .lt(.max))))
            }
            let ranked = indexes.map { index -> RankedIndex in
                var prefix: [IndexRange] = []
                for column in index.columns {
                    guard let found = fieldRanges.first(where: { $0.field == column }) else { break }
                    prefix.append(found.range)
                }
                return RankedIndex(index: index, prefix: prefix, difference: fieldRanges.count - prefix.count)
            }
            // A stable sort, as Erlang's lists:sort/2.
            return ranked.enumerated().sorted { a, b in
                let (x, y) = (a.element, b.element)
                if x.difference != y.difference { return x.difference < y.difference }
                if x.index.columns.count != y.index.columns.count { return x.index.columns.count < y.index.columns.count }
                if PlannedIndex.precedes(x.index, y.index) { return true }
                if PlannedIndex.precedes(y.index, x.index) { return false }
                return a.offset < b.offset
            }.map(\.element)
        }

        // MARK: The plan

        /// The plan for an analysis: the best ranked index, its ranges, order and warnings.
        func plan(_ analysis: Analysis, candidates: [IndexCandidate], fallbackReason: String?) throws -> QueryPlan {
            guard let best = analysis.ranked.first else {
                // Unreachable: `_all_docs` is usable whenever the sort is ignored.
                throw QueryErrorKind.noUsableIndex.error(fallbackReason ?? "No usable index.", field: "sort")
            }
            let descending = request.sort.first?.descending ?? false
            let isEmpty = request.selector.isTopLevelEmptyAndOr || best.prefix.contains(.empty)
            let access: QueryPlan.Access
            let keyOrder: [SortField]
            switch best.index {
            case .special:
                access = .allDocuments(best.prefix.first ?? .all)
                keyOrder = [SortField(FieldPath(["_id"]), descending: descending)]
            case .json(let index):
                access = .json(index, ranges: best.prefix)
                keyOrder = index.fields.map { field in
                    SortField((try? FieldPath(parsing: field.path)) ?? FieldPath([field.path]), descending: descending)
                }
            }
            var warnings: [String] = []
            if let useIndex = request.useIndex, !best.index.isNamed(by: useIndex) {
                let ddoc = "_design/" + IndexDefinition.strippingDesignPrefix(useIndex[0])
                warnings.append(
                    useIndex.count > 1
                        ? "\(ddoc), \(useIndex[1]) was not used because it is not a valid index for this query."
                        : "\(ddoc) was not used because it does not contain a valid index for this query.")
            }
            if best.index == .special { warnings.append("No matching index found, create an index to optimize query time.") }
            if let fallbackReason { warnings.append(fallbackReason + " The matches were sorted in memory.") }
            let required = request.fields.map { fields in
                SelectorAnalysis.sortedBytewise(Set(fields.map(\.description) + SelectorAnalysis.fields(root)))
            }
            return QueryPlan(
                access: access, isEmpty: isEmpty, descending: descending,
                order: fallbackReason == nil ? keyOrder : request.sort, scanIsOrdered: fallbackReason == nil,
                isCovering: best.index.covers(required), candidates: candidates, unsortedFallbackReason: fallbackReason,
                warnings: warnings, sortRefusal: nil)
        }
    }

    /// CouchDB's `invalid_index` for a `use_index` that cannot be honoured.
    static func invalidIndexError(_ useIndex: [String]?) -> CloudantError {
        guard let useIndex, let ddoc = useIndex.first.map(IndexDefinition.strippingDesignPrefix) else {
            return QueryErrorKind.invalidIndex.error(
                "You must specify an index with the `use_index` parameter.", field: "use_index")
        }
        let named = useIndex.count > 1 ? "_design/\(ddoc), \(useIndex[1])" : "_design/\(ddoc)"
        return QueryErrorKind.invalidIndex.error(
            "\(named) specified by `use_index` could not be found or it is not suitable.", field: "use_index")
    }
}
