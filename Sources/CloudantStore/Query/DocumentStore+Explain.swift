public import CloudantCore

extension DocumentStore {
    /// How ``find(_:)`` would run `request`, shaped like CouchDB's `_explain` (spec M-27): the chosen index,
    /// the normalised selector, the effective options, the key ranges scanned, every candidate index with
    /// CouchDB's reason codes, and which selector fields an index could use.
    ///
    /// `mrargs` is simplified (CouchDB's internal key encodings mean nothing here): it names the direction,
    /// the ranges as the selector conditions that produced them, and whether the results are sorted in
    /// memory (`"in_memory_sort"`, which CouchDB would refuse with `no_usable_index`).
    ///
    /// - Throws: The same planning errors as ``find(_:)`` (`use_index` without fallback, `$text` without a
    ///   text index).
    public func explain(_ request: FindRequest) async throws -> JSONValue {
        let indexes = try await self.indexes()
        let plan = try QueryPlanner.plan(request, indexes: indexes)
        let special: JSONValue = ["ddoc": nil, "name": "_all_docs", "type": "special", "def": ["fields": [["_id": "asc"]]]]
        let fields = (request.fields ?? []).map { JSONValue.string($0.description) }
        let columns = plan.index?.fields.map(\.path) ?? []
        let covering =
            plan.index?.type == .json && request.fields.map { $0.allSatisfy { columns.contains($0.description) || $0.description == "_id" } } == true
        let conjuncts = Self.topLevelConditions(request.selector.root)
        var ranges: [JSONValue] = []
        switch plan.access {
        case .allDocuments:
            let idConditions = conjuncts.filter { $0.0.description == "_id" && KeyRange.of($0.1) != nil }
            if !idConditions.isEmpty {
                ranges.append(["field": "_id", "conditions": .array(idConditions.map { MangoSelector.Node.field($0.0, $0.1).json })])
            }
        case .json(let index, _):
            for field in index.fields {
                let used = conjuncts.filter { $0.0.description == field.path && KeyRange.of($0.1) != nil }
                ranges.append(["field": .string(field.path), "conditions": .array(used.map { MangoSelector.Node.field($0.0, $0.1).json })])
            }
        case .text(_, let match):
            ranges.append(["fts_match": .string(match)])
        }
        let indexable = Set(conjuncts.filter { QueryPlannerHints.isIndexable($0.1) }.map { $0.0.description })
        let mentioned = Set(conjuncts.map { $0.0.description })
        return [
            "dbname": .string(name),
            "index": plan.index?.listingJSON ?? special,
            "partitioned": false,
            "selector": request.selector.json,
            "opts": [
                "use_index": .array((request.useIndex ?? []).map { .string($0) }),
                "bookmark": .string(request.bookmark ?? "nil"), "limit": .number(JSONNumber(request.limit)),
                "skip": .number(JSONNumber(request.skip)),
                "sort": .object(JSONObject(request.sort.map { ($0.path.description, .string($0.descending ? "desc" : "asc")) })),
                "fields": .array(fields), "conflicts": .bool(request.conflicts),
                "execution_stats": .bool(request.executionStats), "allow_fallback": .bool(request.allowFallback),
                "r": 1, "stable": false, "update": true,
            ],
            "limit": .number(JSONNumber(request.limit)),
            "skip": .number(JSONNumber(request.skip)),
            "fields": .array(fields),
            "mrargs": [
                "include_docs": true, "reduce": false, "update": true, "stable": false, "conflicts": .bool(request.conflicts),
                "direction": .string(plan.order.first?.descending == true ? "rev" : "fwd"),
                "ranges": .array(ranges),
                "in_memory_sort": .bool(!plan.scanIsOrdered && !request.sort.isEmpty),
            ],
            "covering": .bool(covering),
            "index_candidates": .array(
                plan.candidates.filter { $0.index != plan.index || $0.reasons.isEmpty == false }.compactMap { candidate in
                    guard candidate.index != plan.index else { return nil }
                    return [
                        "index": candidate.index?.listingJSON ?? special,
                        "analysis": [
                            "usable": .bool(candidate.usable),
                            "reasons": .array(candidate.reasons.map { ["name": .string($0)] }),
                            "ranking": .number(JSONNumber(candidate.ranking)), "covering": false,
                        ],
                    ]
                }),
            "selector_hints": [
                [
                    "type": "json", "indexable_fields": .array(indexable.sorted().map { .string($0) }),
                    "unindexable_fields": .array(mentioned.subtracting(indexable).sorted().map { .string($0) }),
                ]
            ],
            "warnings": .array(plan.warnings.map { .string($0) }),
        ]
    }

    private static func topLevelConditions(_ root: MangoSelector.Node) -> [(FieldPath, MangoSelector.Condition)] {
        QueryPlannerConjuncts.of(root)
    }
}

/// CouchDB's indexable operators (M-23) for `selector_hints`.
enum QueryPlannerHints {
    static func isIndexable(_ condition: MangoSelector.Condition) -> Bool {
        switch condition {
        case .eq, .gt, .gte, .lt, .lte, .beginsWith, .exists(true): true
        default: false
        }
    }
}
