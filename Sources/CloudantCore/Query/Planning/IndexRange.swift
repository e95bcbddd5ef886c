/// The range of values one index column is confined to, as CouchDB's planner computes it
/// (`mango_idx_view:range`): the conditions of the top-level `$and` on the field narrow an interval that
/// starts as everything, or find it empty.
///
/// These ranges decide which index CouchDB picks (how many leading columns they cover) and the view keys
/// `_explain` shows (``startKey(_:)``, ``endKey(_:)``); scans use them too, every candidate being
/// re-checked against the whole selector.
///
/// ```swift
/// let node = try MangoSelector(["age": ["$gt": 5, "$lte": 9]]).root
/// IndexRange.fieldRanges(node)   // [("age", .range(.gt(5), .lte(9)))]
/// ```
public enum IndexRange: Sendable, Hashable {
    /// No value can match: the scan is skipped.
    case empty
    /// Values between the two bounds.
    case range(lower: Bound, upper: Bound)

    /// One end of a range.
    public enum Bound: Sendable, Hashable {
        /// Above the value.
        case gt(Value)
        /// At or above the value.
        case gte(Value)
        /// Exactly the value (both bounds of an `$eq`).
        case eq(Value)
        /// At or below the value.
        case lte(Value)
        /// Below the value.
        case lt(Value)

        /// The value of the bound.
        public var value: Value {
            switch self {
            case .gt(let value), .gte(let value), .eq(let value), .lte(let value), .lt(let value): value
            }
        }
    }

    /// A bound's value: a JSON value or one of CouchDB's sentinels below and above every value.
    public enum Value: Sendable, Hashable {
        /// Below every value (`mango_json_min`).
        case min
        /// Above every value (`mango_json_max`).
        case max
        /// A JSON value.
        case json(JSONValue)
        /// The upper end of a `$beginsWith`: the prefix followed by U+FFFF, the highest-sorting code point
        /// in CouchDB's collation. Kept apart so a scan can use an exact bound for the prefix.
        case prefixEnd(String)

        /// The value as JSON (`prefixEnd` as the prefix with U+FFFF appended); `nil` for a sentinel.
        public var json: JSONValue? {
            switch self {
            case .min, .max: nil
            case .json(let value): value
            case .prefixEnd(let prefix): .string(prefix + "\u{FFFF}")
            }
        }

        /// Whether this is `min` or `max` (`mango_json:special`).
        public var isSentinel: Bool { json == nil }
    }

    /// The whole range: above `min` and below `max`.
    public static let all = IndexRange.range(lower: .gt(.min), upper: .lt(.max))

    // MARK: Ranges of a selector

    /// For each indexable field, in CouchDB's (byte) order, its range (`field_ranges/1`). As in CouchDB,
    /// the first field found empty ends the list, which then holds that field alone.
    public static func fieldRanges(_ node: MangoSelector.Node) -> [(field: String, range: IndexRange)] {
        var result: [(field: String, range: IndexRange)] = []
        for field in SelectorAnalysis.indexableFields(node) {
            let range = of(node, field: field)
            if range == .empty { return [(field, .empty)] }
            result.append((field, range))
        }
        return result
    }

    /// The range of `field` under the selector's top-level `$and` (`range/2`).
    public static func of(_ node: MangoSelector.Node, field: String) -> IndexRange {
        narrow(IndexRange.all, by: node, field: field)
    }

    private static func narrow(_ range: IndexRange, by node: MangoSelector.Node, field: String) -> IndexRange {
        switch node {
        case .and(let children):
            return children.reduce(range) { current, child in
                current == .empty ? .empty : narrow(current, by: child, field: field)
            }
        case .field(let path, let condition) where path.description == field:
            return narrow(range, by: condition)
        default:
            return range
        }
    }

    private static func narrow(_ range: IndexRange, by condition: MangoSelector.Condition) -> IndexRange {
        guard case .range(let lower, let upper) = range else { return .empty }
        switch condition {
        case .beginsWith(let prefix):
            let low = narrow(range, by: .gte(.string(prefix)))
            guard case .range(let lower, let upper) = low else { return .empty }
            return narrowUpper(lower, upper, with: .lte(.prefixEnd(prefix)))
        case .lt(let value): return narrowUpper(lower, upper, with: .lt(.json(value)))
        case .lte(let value): return narrowUpper(lower, upper, with: .lte(.json(value)))
        case .eq(let value):
            let argument = Value.json(value)
            switch position(of: argument, lower.value, upper.value) {
            case .min, .max: return .empty
            case .low: return lower.isInclusive ? .range(lower: .eq(argument), upper: .eq(argument)) : .empty
            case .mid: return .range(lower: .eq(argument), upper: .eq(argument))
            case .high: return upper.isInclusive ? .range(lower: .eq(argument), upper: .eq(argument)) : .empty
            }
        case .gte(let value):
            let argument = Value.json(value)
            switch position(of: argument, lower.value, upper.value) {
            case .min, .low: return range
            case .mid: return .range(lower: .gte(argument), upper: upper)
            case .high: return upper.isInclusive ? .range(lower: .eq(argument), upper: .eq(argument)) : .empty
            case .max: return .empty
            }
        case .gt(let value):
            let argument = Value.json(value)
            switch position(of: argument, lower.value, upper.value) {
            case .min: return range
            case .low, .mid: return .range(lower: .gt(argument), upper: upper)
            case .high, .max: return .empty
            }
        default:
            // Other operators are checked on each candidate and leave the range as it is.
            return range
        }
    }

    /// `$lt`/`$lte` (and the end of a `$beginsWith`) on a range.
    private static func narrowUpper(_ lower: Bound, _ upper: Bound, with bound: Bound) -> IndexRange {
        let argument = bound.value
        let inclusive = bound.isInclusive
        switch position(of: argument, lower.value, upper.value) {
        case .min: return .empty
        case .low:
            return inclusive && lower.isInclusive ? .range(lower: .eq(argument), upper: .eq(argument)) : .empty
        case .mid: return .range(lower: lower, upper: bound)
        case .high: return inclusive ? .range(lower: lower, upper: upper) : .range(lower: lower, upper: bound)
        case .max: return .range(lower: lower, upper: upper)
        }
    }

    private enum Position { case min, low, mid, high, max }

    /// Where `value` falls against the current bounds (`range_pos/3`).
    private static func position(of value: Value, _ low: Value, _ high: Value) -> Position {
        let againstLow = compare(value, low)
        if againstLow < 0 { return .min }
        if againstLow == 0 { return .low }
        let againstHigh = compare(value, high)
        if againstHigh < 0 { return .mid }
        return againstHigh == 0 ? .high : .max
    }

    /// CouchDB's view collation with the sentinels at both ends (`mango_json:cmp`).
    public static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.min, .min), (.max, .max): return 0
        case (.min, _), (_, .max): return -1
        case (_, .min), (.max, _): return 1
        default: return Collation.compare(a.json ?? .null, b.json ?? .null)
        }
    }

    // MARK: View keys

    /// One element of a view key: a value, or CouchDB's `<MAX>` object above every value.
    public enum KeyPart: Sendable, Hashable {
        /// A JSON value (or the end of a `$beginsWith`).
        case value(Value)
        /// Above every value (`?MAX_JSON_OBJ`, shown as `"<MAX>"`).
        case max

        /// As `_explain` shows it.
        public var json: JSONValue {
            switch self {
            case .value(let value): value.json ?? .null
            case .max: "<MAX>"
            }
        }
    }

    /// The start key of a JSON index scan over `ranges`, one per leading column (`start_key/1`): each
    /// column's lower value, stopping at the first that is unbounded below.
    public static func startKey(_ ranges: [IndexRange]) -> [KeyPart] {
        var key: [KeyPart] = []
        for range in ranges {
            guard case .range(let lower, _) = range, !lower.value.isSentinel else { break }
            key.append(.value(lower.value))
        }
        return key
    }

    /// The end key of a JSON index scan (`end_key/1`): each column's upper value, ended by `<MAX>` (so
    /// every key with those leading values is in range), stopping at the first column unbounded above.
    public static func endKey(_ ranges: [IndexRange]) -> [KeyPart] {
        var key: [KeyPart] = []
        for range in ranges {
            guard case .range(_, let upper) = range, !upper.value.isSentinel else { break }
            key.append(.value(upper.value))
        }
        return key + [.max]
    }
}

extension IndexRange.Bound {
    /// Whether the bound's value is inside the range (`$gte`, `$lte`, `$eq`).
    public var isInclusive: Bool {
        switch self {
        case .gte, .lte, .eq: true
        case .gt, .lt: false
        }
    }
}
