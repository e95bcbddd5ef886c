/// What planning reads from a request, without the selector's values: two requests of the same shape over
/// the same indexes choose the same index, in the same order, with the same warnings, unless a value makes a
/// field's range empty (``QueryPlanCache`` checks that on every use).
///
/// The planner reads from the selector only its structure, the fields, each condition's operator and the
/// argument of `$exists` (`$exists: false` requires nothing); the values reach the plan only as key ranges.
struct PlanShape: Hashable {
    /// The selector's structure written out: nodes, field paths, operators (see `append(_:to:)`).
    var selector: [UInt8]
    var sort: [SortField]
    var fields: [FieldPath]?
    var useIndex: [String]?
    var allowFallback: Bool
    var isPartitionQuery: Bool
    var unservedSort: FindRequest.UnservedSortPolicy
    var databaseIsPartitioned: Bool

    /// The shape of `request`, or `nil` for a text search (planned afresh: its match expression is the plan).
    init?(_ request: FindRequest, databaseIsPartitioned: Bool) {
        var selector: [UInt8] = []
        guard Self.append(request.selector.root, to: &selector) else { return nil }
        self.selector = selector
        sort = request.sort
        fields = request.fields
        useIndex = request.useIndex
        allowFallback = request.allowFallback
        isPartitionQuery = request.partition != nil
        unservedSort = request.unservedSort
        self.databaseIsPartitioned = databaseIsPartitioned
    }

    /// Appends `node`'s structure; false for a text search. Field paths are length-prefixed, so no two
    /// structures write the same bytes.
    private static func append(_ node: MangoSelector.Node, to bytes: inout [UInt8]) -> Bool {
        switch node {
        case .empty:
            bytes.append(UInt8(ascii: "E"))
        case .text:
            return false
        case .and(let children), .or(let children):
            if case .and = node { bytes.append(UInt8(ascii: "A")) } else { bytes.append(UInt8(ascii: "O")) }
            appendCount(children.count, to: &bytes)
            for child in children { guard append(child, to: &bytes) else { return false } }
        case .field(let path, let condition):
            bytes.append(UInt8(ascii: "F"))
            appendCount(path.segments.count, to: &bytes)
            for segment in path.segments {
                appendCount(segment.utf8.count, to: &bytes)
                bytes.append(contentsOf: segment.utf8)
            }
            bytes.append(operatorCode(condition))
        }
        return true
    }

    private static func appendCount(_ count: Int, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt64(count).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// One byte per operator; `$exists` has one per argument.
    private static func operatorCode(_ condition: MangoSelector.Condition) -> UInt8 {
        switch condition {
        case .eq: 1
        case .ne: 2
        case .lt: 3
        case .lte: 4
        case .gt: 5
        case .gte: 6
        case .exists(true): 7
        case .exists(false): 8
        case .type: 9
        case .in: 10
        case .nin: 11
        case .size: 12
        case .mod: 13
        case .regex: 14
        case .beginsWith: 15
        case .all: 16
        case .elemMatch: 17
        case .allMatch: 18
        case .keyMapMatch: 19
        case .not: 20
        }
    }
}
