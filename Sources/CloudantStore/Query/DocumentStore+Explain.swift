public import CloudantCore

extension DocumentStore {
    /// How ``find(_:limits:visibility:)`` would run `request`, in the shape of CouchDB 3.5's `_explain`: the chosen index, the
    /// normalised selector, the options as CouchDB validated them, every other index with CouchDB's
    /// analysis (`index_candidates`), which selector fields an index could use (`selector_hints`), the view
    /// arguments (`mrargs`: start and end keys, direction, whether documents are read) and whether the
    /// index covers the query.
    ///
    /// When no index serves the sort, CouchDB's `_explain` shows no index (its `_find` refuses the query);
    /// so does this one, and when this store answers the query anyway (see
    /// `FindRequest.unservedSort`) adds `sorted_in_memory` with what it does instead: the index it
    /// scans, its view arguments, and the reason.
    ///
    /// ```swift
    /// let plan = try await store.explain(FindRequest(JSONValue(parsing: #"{"selector": {"age": {"$gt": 20}}}"#)))
    /// plan["index"]?["name"]   // the index CouchDB would use
    /// ```
    /// - Throws: The same planning errors as ``find(_:limits:visibility:)``.
    public func explain(_ request: FindRequest) async throws -> JSONValue {
        let (indexes, partitioned) = try await read(.storeUnreadable) { db in
            (try IndexCatalog.all(in: db).map(\.definition), try Self.isPartitioned(db))
        }
        let plan = try QueryPlanner.plan(request, indexes: indexes, databaseIsPartitioned: partitioned)
        let root = request.selector.root
        let indexable = SelectorAnalysis.indexableFields(root)
        let unindexable = SelectorAnalysis.sortedBytewise(Set(SelectorAnalysis.fields(root)).subtracting(indexable))
        var explained: JSONObject = [
            "dbname": .string(name),
            "index": plan.unsortedFallbackReason == nil ? Self.indexJSON(plan, partitioned: partitioned) : nil,
            "partitioned": .bool(partitioned),
            "selector": request.selector.json,
            "opts": Self.optionsJSON(request),
            "limit": .number(JSONNumber(request.limit)),
            "skip": .number(JSONNumber(request.skip)),
            "fields": .array((request.fields ?? []).map { .string($0.description) }),
            "index_candidates": .array(
                plan.candidates.map { candidate in
                    [
                        "index": candidate.index?.listingJSON(databaseIsPartitioned: partitioned) ?? Self.allDocsIndexJSON,
                        "analysis": [
                            "usable": .bool(candidate.usable), "reasons": .array([["name": .string(candidate.reason)]]),
                            "ranking": .number(JSONNumber(candidate.ranking)),
                            "covering": candidate.covering.map(JSONValue.bool) ?? nil,
                        ],
                    ]
                }),
            "selector_hints": [
                [
                    "type": "json", "indexable_fields": .array(indexable.map { .string($0) }),
                    "unindexable_fields": .array(unindexable.map { .string($0) }),
                ]
            ],
        ]
        let access: JSONObject = ["mrargs": Self.viewArguments(plan, request), "covering": .bool(plan.isCovering)]
        if plan.sortRefusal != nil {
            // CouchDB's `_explain` of a query its `_find` refuses: no index, no view arguments.
        } else if let reason = plan.unsortedFallbackReason {
            var fallback = access
            fallback["index"] = Self.indexJSON(plan, partitioned: partitioned)
            fallback["reason"] = .string(reason)
            explained["sorted_in_memory"] = .object(fallback)
        } else {
            for (key, value) in access.members { explained[key] = value }
        }
        return .object(explained)
    }

    private static func indexJSON(_ plan: QueryPlan, partitioned: Bool) -> JSONValue {
        plan.index?.listingJSON(databaseIsPartitioned: partitioned) ?? allDocsIndexJSON
    }

    /// The options as CouchDB's `mango_opts` validated them, in its order.
    private static func optionsJSON(_ request: FindRequest) -> JSONValue {
        [
            "use_index": .array((request.useIndex ?? []).map { .string($0) }),
            "bookmark": .string(request.bookmark ?? FindBookmark.empty),
            "limit": .number(JSONNumber(request.limit)), "skip": .number(JSONNumber(request.skip)),
            "sort": .object(JSONObject(request.sort.map { ($0.path.description, .string($0.descending ? "desc" : "asc")) })),
            "fields": .array((request.fields ?? []).map { .string($0.description) }),
            "partition": .string(request.partition ?? ""), "r": .number(JSONNumber(request.readQuorum)),
            "conflicts": .bool(request.conflicts), "stale": request.staleOK ? "ok" : false,
            "update": .bool(request.update), "stable": .bool(request.stable),
            "execution_stats": .bool(request.executionStats), "allow_fallback": .bool(request.allowFallback),
        ]
    }

    /// CouchDB's view arguments: the start and end keys of the range (arrays for a JSON index, an id for
    /// `_all_docs`, null for a range that is empty), swapped for a descending sort.
    private static func viewArguments(_ plan: QueryPlan, _ request: FindRequest) -> JSONValue {
        var start: JSONValue = nil
        var end: JSONValue = nil
        if !plan.isEmpty {
            switch plan.access {
            case .allDocuments(.range(let lower, let upper)):
                start = lower.value.isSentinel ? "" : lower.value.json ?? nil
                end = upper.value.isSentinel ? "<MAX>" : upper.value.json ?? nil
            case .allDocuments(.empty): break
            case .json(_, let ranges):
                start = .array(IndexRange.startKey(ranges).map(\.json))
                end = .array(IndexRange.endKey(ranges).map(\.json))
            case .text(_, let match):
                start = .string(match)
            }
        }
        if plan.descending { swap(&start, &end) }
        let readsDocuments = request.readQuorum == 1 && !plan.isCovering
        return [
            "include_docs": .bool(readsDocuments), "view_type": "map", "reduce": false,
            "partition": request.partition.map(JSONValue.string) ?? nil, "start_key": start, "end_key": end,
            "direction": plan.descending ? "rev" : "fwd", "stable": .bool(request.stable || request.staleOK),
            "update": .bool(request.update && !request.staleOK), "conflicts": request.conflicts ? true : "undefined",
        ]
    }
}
