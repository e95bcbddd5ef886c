internal import CloudantCore

/// The part of a selector SQL can answer exactly on a column every document has: the entity kind.
/// Everything else is checked in memory, and every candidate is re-checked against the whole selector.
struct QueryScan: Sendable {
    var kind: String?

    /// Extracts the pushable conditions from the top-level `$and` of a normalised selector.
    init(_ selector: MangoSelector) {
        for (path, condition) in QueryPlannerConjuncts.of(selector.root) {
            guard path.segments == [EntityField.kind], case .eq(.string(let name)) = condition else { continue }
            kind = name
        }
    }
}
