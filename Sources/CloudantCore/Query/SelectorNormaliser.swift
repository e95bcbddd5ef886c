/// Pushes negations to the leaves of a parsed selector (CouchDB's `norm_negations`).
///
/// `$nor: [a, b]` becomes `$and: [¬a, ¬b]`; `¬$and` and `¬$or` swap by De Morgan; a negated field
/// condition becomes its opposite (`$lt`↔`$gte`, `$lte`↔`$gt`, `$eq`↔`$ne`, `$in`↔`$nin`,
/// `$exists: b`→`$exists: !b`) or, when it has none, keeps an explicit `$not` under the field; a double
/// negation cancels. An `$and` inside an `$and` is spliced into it, as CouchDB does, so that
/// `{"f": {"$gte": a, "$lt": b}}` puts both bounds beside the other conditions, where the planner finds
/// a two-sided range.
enum SelectorNormaliser {
    static func normalise(_ node: ParsedNode) throws(CloudantError) -> MangoSelector.Node {
        switch node {
        case .empty: return .empty
        case .and(let children): return flattenedAnd(try normaliseAll(children))
        case .or(let children): return .or(try normaliseAll(children))
        case .nor(let children): return flattenedAnd(try negateAll(children))
        case .not(let inner): return try negate(inner)
        case .field(let path, let condition): return .field(path, condition)
        case .text(let argument): return .text(argument)
        }
    }

    static func negate(_ node: ParsedNode) throws(CloudantError) -> MangoSelector.Node {
        switch node {
        case .and(let children): return .or(try negateAll(children))
        case .or(let children): return flattenedAnd(try negateAll(children))
        case .nor(let children): return .or(try normaliseAll(children))
        case .not(let inner): return try normalise(inner)
        case .field(let path, let condition): return .field(path, negate(condition))
        case .text:
            throw QueryErrorKind.badArg.error(
                "Bad argument for operator $not: a $text search cannot be negated.", field: "$not")
        case .empty:
            throw QueryErrorKind.badArg.error(
                "Bad argument for operator $not: the selector to negate is empty; give it a condition.",
                field: "$not")
        }
    }

    static func negate(_ condition: MangoSelector.Condition) -> MangoSelector.Condition {
        switch condition {
        case .lt(let value): .gte(value)
        case .lte(let value): .gt(value)
        case .gt(let value): .lte(value)
        case .gte(let value): .lt(value)
        case .eq(let value): .ne(value)
        case .ne(let value): .eq(value)
        case .in(let values): .nin(values)
        case .nin(let values): .in(values)
        case .exists(let flag): .exists(!flag)
        case .not(let inner): inner
        default: .not(condition)
        }
    }

    /// `$and` of `children`, with the children that are themselves `$and` spliced in (true ∧ x = x, so an
    /// empty one simply disappears).
    private static func flattenedAnd(_ children: [MangoSelector.Node]) -> MangoSelector.Node {
        var flat: [MangoSelector.Node] = []
        for child in children {
            if case .and(let grandchildren) = child { flat += grandchildren } else { flat.append(child) }
        }
        return .and(flat)
    }

    private static func normaliseAll(_ nodes: [ParsedNode]) throws(CloudantError) -> [MangoSelector.Node] {
        var result: [MangoSelector.Node] = []
        for node in nodes { result.append(try normalise(node)) }
        return result
    }

    private static func negateAll(_ nodes: [ParsedNode]) throws(CloudantError) -> [MangoSelector.Node] {
        var result: [MangoSelector.Node] = []
        for node in nodes { result.append(try negate(node)) }
        return result
    }
}
