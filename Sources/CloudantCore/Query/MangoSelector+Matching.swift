extension MangoSelector {
    /// Whether the document satisfies the selector, with CouchDB's in-memory matcher semantics.
    ///
    /// Every condition on a missing field is false except `$exists: false`; comparisons use
    /// ``Collation/compare(_:_:)``, or ``Collation/rawCompare(_:_:)`` on `_id`. A `$text` search counts as
    /// matched: the text index that answers it has already filtered. CouchDB's quirk for a top-level empty `$and`/`$or` is not
    /// applied here; see
    /// ``isTopLevelEmptyAndOr``.
    ///
    /// ```swift
    /// let adults = try MangoSelector(["age": ["$gte": 18]])
    /// adults.matches(["age": 30])   // true
    /// adults.matches(["name": "x"]) // false: age is missing
    /// ```
    ///
    /// A `$regex` that needs more than ``MatchLimits/default`` counts as not matching here; use
    /// ``matches(_:limits:)`` wherever the selector comes from outside, to answer an error instead.
    public func matches(_ document: JSONObject) -> Bool {
        (try? matches(document, limits: .default)) ?? false
    }

    /// Whether the document satisfies the selector, with every `$regex` evaluation bounded by `limits`.
    ///
    /// ```swift
    /// let selector = try MangoSelector(["name": ["$regex": "(a+)+$"]])
    /// try selector.matches(["name": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"], limits: .default)   // throws
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with ``QueryErrorKind/badArg`` (field `$regex`) when a
    ///   `$regex` evaluation goes over ``MatchLimits/regexStepLimit``; `CancellationError` once
    ///   ``MatchLimits/cancellation`` is cancelled.
    public func matches(_ document: JSONObject, limits: MatchLimits) throws -> Bool {
        try root.matches(.object(document), rawOrder: false, limits: limits)
    }
}

extension MangoSelector.Node {
    /// Whether `value` (a document, or an element under `$elemMatch`) satisfies this node.
    ///
    /// - Parameter rawOrder: Compare by raw bytes, as CouchDB does below an `_id` field.
    func matches(_ value: JSONValue, rawOrder: Bool, limits: MatchLimits) throws -> Bool {
        switch self {
        case .empty, .text:
            return true
        case .and(let children):
            return try children.allSatisfy { try $0.matches(value, rawOrder: rawOrder, limits: limits) }
        case .or(let children):
            // CouchDB: `$or: []` matches (it only returns nothing as a whole selector).
            return try children.isEmpty || children.contains { try $0.matches(value, rawOrder: rawOrder, limits: limits) }
        case .field(let path, let condition):
            switch path.lookup(in: value) {
            case .found(let found):
                return try condition.matches(found, rawOrder: rawOrder || path.segments == ["_id"], limits: limits)
            case .missing:
                return condition == .exists(false)
            case .badPath:
                return false
            }
        }
    }
}

extension MangoSelector.Condition {
    /// Whether a present value satisfies this condition.
    func matches(_ value: JSONValue, rawOrder: Bool, limits: MatchLimits) throws -> Bool {
        let compare: (JSONValue, JSONValue) -> Int = { left, right in
            rawOrder ? Collation.rawCompare(left, right) : Collation.compare(left, right)
        }
        let equal: (JSONValue, JSONValue) -> Bool = { left, right in
            rawOrder ? Collation.rawCompare(left, right) == 0 : Collation.equals(left, right)
        }
        switch self {
        case .eq(let argument): return equal(value, argument)
        case .ne(let argument): return !equal(value, argument)
        case .lt(let argument): return compare(value, argument) < 0
        case .lte(let argument): return compare(value, argument) <= 0
        case .gt(let argument): return compare(value, argument) > 0
        case .gte(let argument): return compare(value, argument) >= 0
        case .exists(let shouldExist): return shouldExist
        case .type(let name): return Self.typeName(of: value) == name
        case .in(let arguments):
            if case .array(let elements) = value {
                return arguments.contains { argument in elements.contains { equal($0, argument) } }
            }
            return arguments.contains { equal(value, $0) }
        case .nin(let arguments):
            return try !MangoSelector.Condition.in(arguments).matches(value, rawOrder: rawOrder, limits: limits)
        case .size(let size):
            guard case .array(let elements) = value else { return false }
            return elements.count == size
        case .mod(let divisor, let remainder):
            guard case .number(.integer(let integer)) = value else { return false }
            // Swift's `%` truncates like Erlang's `rem` (the sign follows the dividend); the overflow
            // variant spares `Int64.min % -1` from trapping (its remainder is 0).
            let result = integer.remainderReportingOverflow(dividingBy: divisor)
            return (result.overflow ? 0 : result.partialValue) == remainder
        case .regex(let pattern):
            guard case .string(let string) = value else { return false }
            return try pattern.matches(string, limits: limits)
        case .beginsWith(let prefix):
            guard case .string(let string) = value else { return false }
            return MangoSelector.begins(string, with: prefix)
        case .all(let arguments):
            guard !arguments.isEmpty, case .array(let elements) = value else { return false }
            if arguments.allSatisfy({ argument in elements.contains { JSONTerm.identical($0, argument) } }) {
                return true
            }
            // `$all: [[x, y]]` also matches a field equal to `[x, y]` (Erlang `==`: 1 equals 1.0 here).
            if arguments.count == 1, case .array = arguments[0] { return JSONTerm.equal(arguments[0], value) }
            return false
        case .elemMatch(let node):
            guard case .array(let elements) = value else { return false }
            return try elements.contains { try node.matches($0, rawOrder: rawOrder, limits: limits) }
        case .allMatch(let node):
            guard case .array(let elements) = value, !elements.isEmpty else { return false }
            return try elements.allSatisfy { try node.matches($0, rawOrder: rawOrder, limits: limits) }
        case .keyMapMatch(let node):
            guard case .object(let object) = value else { return false }
            return try object.keys.contains { try node.matches(.string($0), rawOrder: rawOrder, limits: limits) }
        case .not(let inner):
            return try !inner.matches(value, rawOrder: rawOrder, limits: limits)
        }
    }

    /// The name `$type` compares with.
    static func typeName(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// Erlang term comparisons on JSON as jiffy decodes it, for `$all`, which CouchDB evaluates with
/// `lists:member` (exact match, `=:=`) and `==` rather than collation.
enum JSONTerm {
    /// Erlang `=:=`: same structure, integers and floats never equal (`1` ≠ `1.0`), strings by bytes,
    /// objects member by member in stored order.
    static func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
        compare(a, b, exact: true)
    }

    /// Erlang `==`: as ``identical(_:_:)`` but numbers compare by value (`1 == 1.0`).
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        compare(a, b, exact: false)
    }

    private static func compare(_ a: JSONValue, _ b: JSONValue, exact: Bool) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)):
            switch (x, y) {
            case (.integer(let i), .integer(let j)): return i == j
            case (.double(let i), .double(let j)): return i == j
            default: return !exact && Collation.compareNumbers(x, y) == 0
            }
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { compare($0, $1, exact: exact) }
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && zip(x.members, y.members).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && compare($0.value, $1.value, exact: exact) }
        default: return false
        }
    }
}

extension MangoSelector {
    /// `$beginsWith` as CouchDB's `string:prefix/2` answers it: the prefix's code points start the value's, and
    /// end where one of the value's grapheme clusters ends (`"e"` does not begin `"e\u{301}"`, nor `"\r"` begin
    /// `"\r\n"`). No normalisation: a precomposed `"é"` and `"e\u{301}"` are different text, as in Erlang.
    static func begins(_ string: String, with prefix: String) -> Bool {
        guard string.utf8.starts(with: prefix.utf8) else { return false }
        let end = string.utf8.index(string.utf8.startIndex, offsetBy: prefix.utf8.count)
        return end == string.endIndex || end.samePosition(in: string) != nil
    }
}

