public import CloudantCore

/// A condition of a ``CollectionQuery``: one field compared with a value, or two conditions combined with
/// `$and`/`$or`, nested to any depth (OTFCloudantStore allowed two levels only).
///
/// A component is plain data; it becomes a Mango selector fragment through ``json``, and the store checks
/// it when the query runs, so a malformed one (an `$in` without an array) fails there with a typed
/// `CloudantError` rather than matching nothing.
///
/// ```swift
/// let family = QueryComponent.simpleComponent("title", .equal, "Family Practice Doctor")
/// let young = QueryComponent.simpleComponent(field: "age", comparisonOperator: .in, value: [15, 20, 30])
/// let either = QueryComponent.combinedComponent(
///     .combinedComponent(family, .and, young), .or, .simpleComponent("title", .equal, "Test"))
/// either.json.jsonString()
/// // {"$or":[{"$and":[{"title":{"$eq":"Family Practice Doctor"}},{"age":{"$in":[15,20,30]}}]},{"title":{"$eq":"Test"}}]}
/// ```
public struct QueryComponent: Sendable, Hashable {
    // A struct over an indirect enum rather than a public enum: one generic `simpleComponent` then takes
    // literals, variables of any ``QueryValueConvertible`` type and `JSONValue`s alike, where an enum case
    // beside a generic function of the same name is ambiguous for a `JSONValue`.
    private indirect enum Node: Sendable, Hashable {
        case simple(String, ComparisonOperator, JSONValue)
        case combined(QueryComponent, CombinationSelector, QueryComponent)
    }

    private let node: Node

    /// `field` compared with `value` by `comparisonOperator`: `{field: {operator: value}}`.
    ///
    /// `field` is a Mango field path: `"address.city"` reaches a nested member and `\.` escapes a dot.
    /// `value` is any ``QueryValueConvertible``: a literal, a `String`, number, `Bool`, `Date`, `UUID`, an
    /// array or dictionary of them, or a `JSONValue`.
    public static func simpleComponent(
        _ field: String, _ comparisonOperator: ComparisonOperator, _ value: some QueryValueConvertible
    ) -> QueryComponent {
        QueryComponent(node: .simple(field, comparisonOperator, value.queryValue))
    }

    /// The labelled spelling.
    ///
    /// ```swift
    /// let query = QueryComponent.simpleComponent(field: "age", comparisonOperator: .lessThan, value: 20)
    /// ```
    public static func simpleComponent(
        field: String, comparisonOperator: ComparisonOperator, value: some QueryValueConvertible
    ) -> QueryComponent {
        simpleComponent(field, comparisonOperator, value)
    }

    /// Two components combined: `{"$and"|"$or": [lhs, rhs]}`. Either side may itself be combined.
    public static func combinedComponent(
        _ lhs: QueryComponent, _ selector: CombinationSelector, _ rhs: QueryComponent
    ) -> QueryComponent {
        QueryComponent(node: .combined(lhs, selector, rhs))
    }

    /// The Mango selector fragment, exactly as it is sent to `_find` (before normalisation).
    public var json: JSONValue {
        switch node {
        case .simple(let field, let comparison, let value):
            .object([field: .object([comparison.mangoOperator: value])])
        case .combined(let lhs, let selector, let rhs):
            .object([selector.mangoOperator: .array([lhs.json, rhs.json])])
        }
    }
}

/// How a ``QueryComponent/simpleComponent(_:_:_:)`` compares a field with its value; each case is one Mango
/// operator.
///
/// ```swift
/// QueryComponent.simpleComponent("tags", .size, 2)          // {"tags": {"$size": 2}}
/// QueryComponent.simpleComponent("name", .beginsWith, "Ad") // {"name": {"$beginsWith": "Ad"}}
/// ```
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `$eq`: equal to the value (by CouchDB collation, so `1` equals `1.0`).
    case equal = "$eq"
    /// `$ne`: not equal (OTFCloudantStore sent `$neq`, which matched nothing).
    case notEqual = "$ne"
    /// `$lt`: sorts before the value.
    case lessThan = "$lt"
    /// `$lte`: sorts before or equal to the value.
    case lessThanOrEqual = "$lte"
    /// `$gt`: sorts after the value.
    case greaterThan = "$gt"
    /// `$gte`: sorts after or equal to the value.
    case greaterThanOrEqual = "$gte"
    /// `$in`: equal to one element of the value, which must be an array.
    case `in` = "$in"
    /// `$nin`: equal to no element of the value, which must be an array.
    case notIn = "$nin"
    /// `$exists`: the field is present (`true`) or absent (`false`); the value must be a boolean.
    case exists = "$exists"
    /// `$regex`: a string matching the value, a regular expression string.
    case regex = "$regex"
    /// `$beginsWith`: a string starting with the value, a string.
    case beginsWith = "$beginsWith"
    /// `$size`: an array with this many elements; the value must be a non-negative integer.
    case size = "$size"
    /// `$type`: a value of this JSON type: `"null"`, `"boolean"`, `"number"`, `"string"`, `"array"`, `"object"`.
    case type = "$type"
    /// `$mod`: an integer whose remainder by the value's `[divisor, remainder]` matches; the divisor must
    /// not be zero.
    case mod = "$mod"

    /// The Mango operator, such as `"$lte"`.
    public var mangoOperator: String { rawValue }
}

/// How a ``QueryComponent/combinedComponent(_:_:_:)`` joins its two sides.
public enum CombinationSelector: String, Sendable, Hashable, CaseIterable {
    /// `$and`: both sides match.
    case and = "$and"
    /// `$or`: at least one side matches.
    case or = "$or"

    /// The Mango operator, `"$and"` or `"$or"`.
    public var mangoOperator: String { rawValue }
}
