/// A validated, normalised Mango (Cloudant Query) selector.
///
/// Parsing applies CouchDB's normalisation: implicit `$eq` and `$and` become explicit, nested
/// objects become dotted paths, field names are pushed down through `$and`/`$or`/`$not`/`$nor`, and
/// negations are pushed to the leaves by De Morgan's laws, so every leaf is a ``FieldPath`` with one
/// ``Condition``. ``json`` gives the normalised form back, as `_explain` shows it.
///
/// ```swift
/// let selector = try MangoSelector(JSONValue(parsing: #"{"age": {"$gte": 18}, "$not": {"name": "x"}}"#))
/// selector.json.jsonString()
/// // {"$and":[{"age":{"$gte":18}},{"name":{"$ne":"x"}}]}
/// selector.matches(["age": 20, "name": "y"])   // true
/// ```
///
/// Two selectors are equal when their normalised JSON is identical, member order and number spelling
/// included (`1` and `1.0` differ, because `$all` tells them apart).
public struct MangoSelector: Sendable, Hashable, CustomStringConvertible {
    /// The normalised tree.
    public let root: Node

    /// The compact normalised JSON, computed once; equality and hashing use it.
    private let canonical: [UInt8]

    /// Parses and normalises a selector.
    ///
    /// - Parameter json: The selector object (`{}` matches every document).
    /// - Throws: `CloudantError.Code.invalidInput` whose `CloudantError.queryErrorKind` is CouchDB's
    ///   error name: ``QueryErrorKind/invalidSelectorJSON`` (not an object), ``QueryErrorKind/badArg``,
    ///   ``QueryErrorKind/invalidOperator``, ``QueryErrorKind/notSupported``,
    ///   ``QueryErrorKind/invalidSelector``, ``QueryErrorKind/invalidFieldName`` or
    ///   ``QueryErrorKind/multipleTextSelector``; `CloudantError.Context.field` names the path or operator.
    public init(_ json: JSONValue) throws(CloudantError) {
        guard case .object = json else {
            // CouchDB's words without the value, which may hold personal data (as ``SelectorParser``'s arguments).
            throw QueryErrorKind.invalidSelectorJSON.error("Selector must be a JSON object", field: nil)
        }
        let parsed = try SelectorParser(scope: .document).parse(json, at: FieldPath([]))
        let root = try SelectorNormaliser.normalise(parsed)
        if root.textSearchCount > 1 {
            throw QueryErrorKind.multipleTextSelector.error(
                "A selector may use $text at most once; combine the search terms into one $text.", field: "$text")
        }
        self.init(root: root)
    }

    /// Wraps an already normalised tree (for planners that build selectors directly).
    public init(root: Node) {
        self.root = root
        self.canonical = root.json.jsonBytes()
    }

    /// The selector that matches every document, `{}`.
    public static let all = MangoSelector(root: .empty)

    /// The normalised selector as JSON, in the form CouchDB's `_explain` shows and ``init(_:)`` reads back.
    ///
    /// A `$text` search is written `{"$text": …}` rather than CouchDB's internal `{"$default": {"$text": …}}`,
    /// and a condition on an element itself (inside `$elemMatch`) is written without CouchDB's `""` field.
    public var json: JSONValue { root.json }

    /// Whether this is CouchDB's top-level empty-array quirk: the entire normalised
    /// selector is exactly `{"$and": []}` or `{"$or": []}` (`{"$nor": []}` normalises to the former).
    ///
    /// CouchDB then returns no rows without scanning, although inside a larger selector both are vacuously
    /// true and ``matches(_:)`` says `true`. An executor checks this first.
    public var isTopLevelEmptyAndOr: Bool {
        switch root {
        case .and(let children), .or(let children): children.isEmpty
        default: false
        }
    }

    /// The `$text` search argument, when the selector has one; a text index must answer it.
    public var textSearch: JSONValue? { root.firstTextSearch }

    public var description: String { root.json.jsonString() }

    public static func == (lhs: MangoSelector, rhs: MangoSelector) -> Bool { lhs.canonical == rhs.canonical }

    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }
}

extension MangoSelector {
    /// A node of a normalised selector: combinators over field conditions.
    ///
    /// Equality of ``Node`` values follows `JSONValue`'s (object member order ignored, `1 == 1.0`); compare
    /// `Selector` values when that matters.
    public indirect enum Node: Sendable, Hashable {
        /// `{}`: matches every value.
        case empty
        /// `$and`: every child matches (`[]` matches).
        case and([Node])
        /// `$or`: some child matches; `[]` matches, as in CouchDB.
        case or([Node])
        /// A condition on the value at a path; the empty path is the value itself.
        case field(FieldPath, Condition)
        /// `$text`: a full-text search, answered by a text index. ``MangoSelector/matches(_:)`` treats it as true.
        case text(JSONValue)
    }

    /// A condition on one value. Negations have been pushed down, so ``not(_:)`` only wraps conditions that
    /// have no direct opposite.
    public indirect enum Condition: Sendable, Hashable {
        /// `$eq`: collates equal.
        case eq(JSONValue)
        /// `$ne`: present and collates unequal.
        case ne(JSONValue)
        /// `$lt`: collates before.
        case lt(JSONValue)
        /// `$lte`: collates before or equal.
        case lte(JSONValue)
        /// `$gt`: collates after.
        case gt(JSONValue)
        /// `$gte`: collates after or equal.
        case gte(JSONValue)
        /// `$exists`: present (`true`) or absent (`false`).
        case exists(Bool)
        /// `$type`: the JSON type name (`"null"`, `"boolean"`, `"number"`, `"string"`, `"array"`,
        /// `"object"`); any other name is accepted and matches nothing, as in CouchDB.
        case type(String)
        /// `$in`: equals one of the values (any element of an array field may).
        case `in`([JSONValue])
        /// `$nin`: present and equals none of the values.
        case nin([JSONValue])
        /// `$size`: an array of this length.
        case size(Int)
        /// `$mod`: an integer whose Erlang `rem` by `divisor` is `remainder`.
        case mod(divisor: Int64, remainder: Int64)
        /// `$regex`: a string the pattern matches somewhere.
        case regex(RegexPattern)
        /// `$beginsWith`: a string starting with these UTF-8 bytes.
        case beginsWith(String)
        /// `$all`: an array holding every value (exact term equality), or `$all: [[x, y]]` equal to `[x, y]`.
        case all([JSONValue])
        /// `$elemMatch`: an array with an element the selector matches.
        case elemMatch(Node)
        /// `$allMatch`: a non-empty array whose every element the selector matches.
        case allMatch(Node)
        /// `$keyMapMatch`: an object with a member name the selector matches.
        case keyMapMatch(Node)
        /// `$not`: the condition does not match (the value must still be present).
        case not(Condition)
    }
}

extension MangoSelector.Node {
    /// How many `$text` searches the tree holds (CouchDB allows one).
    var textSearchCount: Int {
        switch self {
        case .text: 1
        case .and(let children), .or(let children): children.reduce(0) { $0 + $1.textSearchCount }
        case .empty, .field: 0
        }
    }

    /// The first `$text` argument in the tree.
    var firstTextSearch: JSONValue? {
        switch self {
        case .text(let argument): argument
        case .and(let children), .or(let children): children.lazy.compactMap(\.firstTextSearch).first
        case .empty, .field: nil
        }
    }
}
