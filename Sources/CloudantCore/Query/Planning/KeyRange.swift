/// A range of ``CollationKey``s: the values one index column may hold for a document to match.
///
/// Built from the conditions the selector puts on the column at its top-level `$and` (spec M-23). The
/// comparison operators collate across types (`{"$gt": 5}` also matches strings and objects), and so do
/// collation keys, so those ranges are exact; `$beginsWith` and `$type` give wider ranges, and every
/// candidate is re-checked against the whole selector. `$in` gives no range: an array field matches it
/// through any element, wherever the array itself sorts.
public struct KeyRange: Sendable, Hashable {
    /// One end of a range.
    public struct Bound: Sendable, Hashable {
        /// The key.
        public var key: [UInt8]
        /// Whether the key itself is inside the range.
        public var inclusive: Bool
    }

    /// The lower end; nil means unbounded.
    public var lower: Bound?
    /// The upper end; nil means unbounded.
    public var upper: Bound?

    /// The unbounded range.
    public static let all = KeyRange(lower: nil, upper: nil)

    /// Whether the range holds exactly one key (an `$eq`).
    public var isSingleKey: Bool {
        guard let lower, let upper else { return false }
        return lower.inclusive && upper.inclusive && lower.key == upper.key
    }

    /// Whether the range bounds anything.
    public var isBounded: Bool { lower != nil || upper != nil }

    /// The range of keys the condition can match, or nil when the condition does not narrow the keys.
    public static func of(_ condition: MangoSelector.Condition) -> KeyRange? {
        switch condition {
        case .eq(let value):
            let key = CollationKey.of(value)
            return KeyRange(lower: Bound(key: key, inclusive: true), upper: Bound(key: key, inclusive: true))
        case .gt(let value): return KeyRange(lower: Bound(key: CollationKey.of(value), inclusive: false), upper: nil)
        case .gte(let value): return KeyRange(lower: Bound(key: CollationKey.of(value), inclusive: true), upper: nil)
        case .lt(let value): return KeyRange(lower: nil, upper: Bound(key: CollationKey.of(value), inclusive: false))
        case .lte(let value): return KeyRange(lower: nil, upper: Bound(key: CollationKey.of(value), inclusive: true))
        case .beginsWith(let prefix):
            let range = CollationKey.prefixRange(prefix) ?? CollationKey.typeRange(of: .string(prefix))
            return KeyRange(lower: Bound(key: range.lower, inclusive: true), upper: Bound(key: range.upper, inclusive: false))
        case .type(let name):
            let sample: JSONValue? =
                switch name {
                case "null": .null
                case "number": 0
                case "string": ""
                case "array": .array([])
                case "object": .object(JSONObject())
                default: nil
                }
            guard let sample else { return nil }
            let range = CollationKey.typeRange(of: sample)
            return KeyRange(lower: Bound(key: range.lower, inclusive: true), upper: Bound(key: range.upper, inclusive: false))
        default:
            return nil
        }
    }

    /// The keys in both ranges.
    public func intersection(_ other: KeyRange) -> KeyRange {
        KeyRange(lower: Self.tighter(lower, other.lower, isLower: true), upper: Self.tighter(upper, other.upper, isLower: false))
    }

    private static func tighter(_ a: Bound?, _ b: Bound?, isLower: Bool) -> Bound? {
        guard let a else { return b }
        guard let b else { return a }
        if a.key == b.key { return Bound(key: a.key, inclusive: a.inclusive && b.inclusive) }
        let aFirst = a.key.lexicographicallyPrecedes(b.key)
        return isLower == aFirst ? b : a
    }
}
