/// An index as CouchDB's planner sees it: the special `_all_docs` index or a JSON index.
enum PlannedIndex: Hashable {
    /// `_all_docs`: every document by `_id`.
    case special
    /// A JSON index.
    case json(IndexDefinition)

    /// The index's columns, as the field names of normalised selectors.
    var columns: [String] {
        switch self {
        case .special: ["_id"]
        case .json(let index): index.fields.map(\.path)
        }
    }

    var definition: IndexDefinition? {
        if case .json(let index) = self { index } else { nil }
    }

    /// Whether it has a partial filter (only `use_index` selects such an index).
    var isPartial: Bool { definition?.partialFilterSelector != nil }

    /// Whether `use_index` names it (`filter_indexes/2,3`); never `_all_docs`.
    func isNamed(by useIndex: [String]?) -> Bool {
        guard let index = definition else { return false }
        return QueryPlanner.names(index, in: useIndex)
    }

    /// CouchDB orders indexes as Erlang terms: the special index (whose design document is `undefined`)
    /// first, then by design document id and name, byte by byte.
    static func precedes(_ a: PlannedIndex, _ b: PlannedIndex) -> Bool {
        switch (a.definition, b.definition) {
        case (nil, nil), (_?, nil): return false
        case (nil, _?): return true
        case (let x?, let y?):
            let (ddocA, ddocB) = (x.designDocumentID, y.designDocumentID)
            // Byte by byte (String's `==` would equate canonically equivalent names).
            if !ddocA.utf8.elementsEqual(ddocB.utf8) { return ddocA.utf8.lexicographicallyPrecedes(ddocB.utf8) }
            if !x.name.utf8.elementsEqual(y.name.utf8) { return x.name.utf8.lexicographicallyPrecedes(y.name.utf8) }
            return x.type.rawValue.utf8.lexicographicallyPrecedes(y.type.rawValue.utf8)
        }
    }

    /// Whether the index holds every one of `fields` (and `_id`), so documents can be made from its
    /// entries (`mango_idx_view:covers`); `nil` fields (whole documents) are never covered.
    func covers(_ fields: [String]?) -> Bool {
        guard let fields, case .json = self else { return false }
        let available = Set(["_id"] + columns)
        return fields.allSatisfy(available.contains)
    }
}

/// One index's place in CouchDB's ranking of the usable indexes of the chosen type.
struct RankedIndex {
    var index: PlannedIndex
    /// The ranges of its leading columns found among the selector's indexable fields.
    var prefix: [IndexRange]
    /// How many indexable fields its prefix leaves out (CouchDB's `PrefixDifference`).
    var difference: Int
}
