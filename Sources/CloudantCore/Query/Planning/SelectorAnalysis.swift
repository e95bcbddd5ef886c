/// What CouchDB's planner reads from a normalised selector (`mango_selector` and `mango_idx_view`), on this
/// store's normalised tree. Field names are the dotted, escaped paths CouchDB's normalised selectors use.
///
/// ```swift
/// let node = try MangoSelector(["age": ["$gt": 5], "name": ["$regex": "^A"]]).root
/// SelectorAnalysis.indexableFields(node)            // ["age"]
/// SelectorAnalysis.fields(node)                     // ["age", "name"]
/// SelectorAnalysis.hasRequiredFields(node, ["age"]) // true
/// ```
public enum SelectorAnalysis {
    /// The fields a JSON index can narrow, sorted and unique (`mango_idx_view:indexable_fields`): the
    /// fields of `$eq`, `$lt`, `$lte`, `$gt`, `$gte`, `$beginsWith` and `$exists` conditions reached
    /// through `$and` only.
    public static func indexableFields(_ node: MangoSelector.Node) -> [String] {
        var found: Set<String> = []
        collectIndexable(node, into: &found)
        return sortedBytewise(found)
    }

    private static func collectIndexable(_ node: MangoSelector.Node, into found: inout Set<String>) {
        switch node {
        case .and(let children): for child in children { collectIndexable(child, into: &found) }
        case .field(let path, let condition) where isIndexable(condition): found.insert(path.description)
        default: break
        }
    }

    /// CouchDB's indexable operators (`mango_idx_view:indexable/1`).
    public static func isIndexable(_ condition: MangoSelector.Condition) -> Bool {
        switch condition {
        case .eq, .lt, .lte, .gt, .gte, .beginsWith, .exists: true
        default: false
        }
    }

    /// Every field the selector names, through `$and`, `$or` and `$nor` (`mango_selector:fields`), in
    /// order and with repeats.
    public static func fields(_ node: MangoSelector.Node) -> [String] {
        switch node {
        case .and(let children), .or(let children): children.flatMap(fields)
        case .field(let path, _): [path.description]
        case .text: ["$default"]
        case .empty: []
        }
    }

    /// Whether every document the selector matches has each of `required` (`has_required_fields`): a
    /// condition other than `$exists: false` on a field requires it; `$and` requires what any child does,
    /// `$or` what every child does (so `{"$or": []}` requires everything, as in CouchDB).
    public static func hasRequiredFields(_ node: MangoSelector.Node, _ required: [String]) -> Bool {
        remaining(required, after: node).isEmpty
    }

    /// The fields every matching document has, computed once so that checking many indexes is a set lookup
    /// each: ``hasRequiredFields(_:_:)`` holds exactly when every one of `required` is in it.
    ///
    /// `$and` requires what any child does, `$or` what every child does (`{"$or": []}` everything).
    static func requiredFields(_ node: MangoSelector.Node) -> RequiredFields {
        switch node {
        case .empty, .text: return .some([])
        case .field(_, .exists(false)): return .some([])
        case .field(let path, _): return .some([path.description])
        case .and(let children):
            return children.reduce(RequiredFields.some([])) { $0.union(requiredFields($1)) }
        case .or(let children):
            return children.reduce(RequiredFields.every) { $0.intersection(requiredFields($1)) }
        }
    }

    /// The fields a selector requires: some, or every field (an `$or` with no branch matches nothing).
    enum RequiredFields: Equatable {
        case every
        case some(Set<String>)

        func contains(_ field: String) -> Bool {
            switch self {
            case .every: true
            case .some(let fields): fields.contains(field)
            }
        }

        func union(_ other: RequiredFields) -> RequiredFields {
            switch (self, other) {
            case (.every, _), (_, .every): .every
            case (.some(let a), .some(let b)): .some(a.union(b))
            }
        }

        func intersection(_ other: RequiredFields) -> RequiredFields {
            switch (self, other) {
            case (.every, let x), (let x, .every): x
            case (.some(let a), .some(let b)): .some(a.intersection(b))
            }
        }
    }

    private static func remaining(_ required: [String], after node: MangoSelector.Node) -> [String] {
        guard !required.isEmpty else { return [] }
        switch node {
        case .empty, .text: return required
        case .and(let children):
            return children.reduce(required) { remaining($0, after: $1) }
        case .or(let children):
            var left: Set<String> = []
            for child in children { left.formUnion(remaining(required, after: child)) }
            return required.filter(left.contains)
        case .field(_, .exists(false)): return required
        case .field(let path, _):
            let name = path.description
            guard let index = required.firstIndex(of: name) else { return required }
            var rest = required
            rest.remove(at: index)
            return rest
        }
    }

    /// Whether the selector fixes `field` to one value with `$eq` among the children of its top-level
    /// `$and` (`mango_selector:is_constant_field`).
    public static func isConstantField(_ node: MangoSelector.Node, _ field: String) -> Bool {
        switch node {
        case .and(let children): children.contains { isConstantField($0, field) }
        case .field(let path, let condition) where path.description == field:
            if case .eq = condition { true } else { false }
        default: false
        }
    }

    /// Whether the selector is a text search, which only a text index answers.
    public static func isTextSearch(_ node: MangoSelector.Node) -> Bool {
        switch node {
        case .text: true
        case .and(let children), .or(let children): children.contains(where: isTextSearch)
        default: false
        }
    }

    /// Strings in Erlang's binary order (byte order), as CouchDB's `lists:usort` sorts field names.
    public static func sortedBytewise(_ names: some Sequence<String>) -> [String] {
        names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
