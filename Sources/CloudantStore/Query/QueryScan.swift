internal import CloudantCore

/// The part of a selector SQL can answer exactly, on the columns every document has: a range or prefix
/// on `_id` (raw byte order, spec M-11) and the entity kind. Everything else is checked in memory, and
/// every candidate is re-checked against the whole selector (spec M-23).
struct QueryScan: Sendable {
    var idLowerBound: (value: String, inclusive: Bool)?
    var idUpperBound: (value: String, inclusive: Bool)?
    var idPrefix: String?
    var kind: String?

    /// Extracts the pushable conditions from the top-level `$and` of a normalised selector.
    init(_ selector: MangoSelector) {
        let conjuncts: [MangoSelector.Node]
        switch selector.root {
        case .and(let children): conjuncts = children
        default: conjuncts = [selector.root]
        }
        for node in conjuncts {
            guard case .field(let path, let condition) = node, path.segments.count == 1 else { continue }
            switch (path.segments[0], condition) {
            case ("_id", .eq(.string(let id))):
                idLowerBound = (id, true)
                idUpperBound = (id, true)
            case ("_id", .gt(.string(let id))): idLowerBound = (id, false)
            case ("_id", .gte(.string(let id))): idLowerBound = (id, true)
            case ("_id", .lt(.string(let id))): idUpperBound = (id, false)
            case ("_id", .lte(.string(let id))): idUpperBound = (id, true)
            case ("_id", .beginsWith(let prefix)): idPrefix = prefix
            case ("entityType", .eq(.string(let name))): kind = name
            default: continue
            }
        }
    }

    /// Whether SQL narrows the scan at all.
    var isNarrowing: Bool { idLowerBound != nil || idUpperBound != nil || idPrefix != nil || kind != nil }
}
