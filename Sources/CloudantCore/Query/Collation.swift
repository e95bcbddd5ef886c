/// CouchDB view collation: the order Mango comparisons, `sort` and JSON index keys use.
///
/// Values of different JSON types order as `null < false < true < numbers < strings < arrays < objects`.
/// Numbers compare by value (`1 == 1.0`, exactly, even past 2^53); strings with ICU's root collator, as
/// CouchDB compares them (``compareStrings(_:_:)``); arrays element by element with a prefix
/// first; objects member by member in their **stored** order, each member by key (collated as a string) and
/// then value, with a prefix first — so `{"a":1,"b":2}` and `{"b":2,"a":1}` are *not* equal.
///
/// ```swift
/// Collation.compare(nil, false)            // -1
/// Collation.compare(1, 1.0)                // 0
/// Collation.compare("a", "A")              // -1 (case is only a tie-break)
/// Collation.compare("A", "aa")             // -1 (letters beat case)
/// Collation.rawCompare("A", "a")           // -1 (bytes, for `_id`)
/// ```
public enum Collation {
    /// The version of the string order: ICU's collator version (`ucol_getVersion`, `"153.128"`), which a view
    /// index's `_info` lists in `collator_versions` and `/_node/_local/_versions` reports, as CouchDB's do.
    /// It changes whenever ICU orders some pair of strings differently; a store whose index keys were made
    /// with another version makes them again when it opens.
    public static var version: String { ICUCollator.collatorVersion }

    /// ICU's library version (`"76.1"`), for `/_node/_local/_versions`.
    public static var libraryVersion: String { ICUCollator.libraryVersion }

    /// The Unicode Collation Algorithm version of the collator (`"15.1"`), for `/_node/_local/_versions`.
    public static var algorithmVersion: String { ICUCollator.algorithmVersion }

    /// Compares two JSON values in CouchDB view collation order.
    ///
    /// The order is total and consistent: antisymmetric, transitive, and `0` exactly when the values are
    /// collation-equal (which for strings means equal at every level of ``compareStrings(_:_:)``: canonically equivalent,
    /// or differing only in ignorable characters).
    ///
    /// - Returns: `-1` when `a` sorts first, `0` when they collate equal, `1` when `b` sorts first.
    public static func compare(_ a: JSONValue, _ b: JSONValue) -> Int {
        let rankA = typeRank(a)
        let rankB = typeRank(b)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return compareNumbers(x, y)
        case (.string(let x), .string(let y)):
            return compareStrings(x, y)
        case (.array(let x), .array(let y)):
            return compareSequences(x, y, by: compare)
        case (.object(let x), .object(let y)):
            return compareMembers(x, y, key: compareStrings, value: compare)
        default:
            // null, false and true: the rank already told them apart.
            return 0
        }
    }

    /// Whether two values are collation-equal: `compare(a, b) == 0`; arrays of different lengths are unequal
    /// without comparing their elements.
    ///
    /// Equality is what `$eq`, `$ne`, `$in` and `$nin` ask, of every candidate of an unindexed scan: the same
    /// bytes are equal and two different strings of ASCII letters, digits, punctuation and spaces are not,
    /// without asking ICU; other strings are compared by ICU.
    ///
    /// ```swift
    /// Collation.equals(1, 1.0)                  // true
    /// Collation.equals("caf\u{E9}", "cafe\u{301}")   // true: canonically equivalent
    /// Collation.equals("a\u{1}b", "ab")         // true: U+0001 is ignorable
    /// Collation.equals("a", "A")                // false
    /// ```
    public static func equals(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            return ASCIISortKey.shared?.equality(x, y) ?? (compareStrings(x, y) == 0)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equals($0, $1) }
        default:
            return compare(a, b) == 0
        }
    }

    /// Compares two JSON values the way CouchDB compares `_id` and `_all_docs` keys: strings by their raw
    /// UTF-8 bytes (so `"A" < "Z" < "a"`), not by ICU collation.
    ///
    /// Values of other types follow Erlang's term order, which is what CouchDB's `mango_json:cmp_raw` falls
    /// back to: numbers < `false` < `null` < `true` < objects < arrays < strings. Objects compare by member
    /// count first, then member by member (key bytes, then value) in stored order.
    ///
    /// ```swift
    /// Collation.rawCompare("B", "a")   // -1: 0x42 < 0x61
    /// ```
    ///
    /// - Returns: `-1`, `0` or `1` as for ``compare(_:_:)``.
    public static func rawCompare(_ a: JSONValue, _ b: JSONValue) -> Int {
        let rankA = erlangRank(a)
        let rankB = erlangRank(b)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return compareNumbers(x, y)
        case (.string(let x), .string(let y)):
            return compareBytes(x, y)
        case (.array(let x), .array(let y)):
            return compareSequences(x, y, by: rawCompare)
        case (.object(let x), .object(let y)):
            // An object is the Erlang term `{[{K, V}, …]}`: a one-tuple around a list of pairs, so the
            // member lists compare as lists (a prefix first), each pair by key then value.
            return compareMembers(x, y, key: compareBytes, value: rawCompare)
        default:
            return 0
        }
    }

    /// Compares two strings by their UTF-8 bytes.
    ///
    /// - Returns: `-1`, `0` or `1`.
    public static func compareBytes(_ a: String, _ b: String) -> Int {
        compareSequences(a.utf8, b.utf8) { $0 == $1 ? 0 : ($0 < $1 ? -1 : 1) }
    }

    /// Compares two JSON numbers by their exact mathematical value, whether integer or double.
    ///
    /// A plain `Double` conversion would make `2^53 + 1` equal to `2^53` as a double but not as an integer,
    /// breaking transitivity; this compares exactly. A NaN (which no parsed value holds) sorts below every
    /// other number so the order stays total.
    ///
    /// - Returns: `-1`, `0` or `1`.
    public static func compareNumbers(_ a: JSONNumber, _ b: JSONNumber) -> Int {
        JSONNumber.compare(a, b)
    }

    // MARK: - Helpers

    /// CouchDB's type order.
    static func typeRank(_ value: JSONValue) -> Int {
        switch value {
        case .null: 0
        case .bool(false): 1
        case .bool(true): 2
        case .number: 3
        case .string: 4
        case .array: 5
        case .object: 6
        }
    }

    /// Erlang's term order for the terms jiffy decodes JSON into: number < atom (false < null < true,
    /// alphabetically) < tuple (object) < list (array) < binary (string).
    static func erlangRank(_ value: JSONValue) -> Int {
        switch value {
        case .number: 0
        case .bool(false): 1
        case .null: 2
        case .bool(true): 3
        case .object: 4
        case .array: 5
        case .string: 6
        }
    }

    static func compareSequences<S: Sequence>(_ a: S, _ b: S, by compare: (S.Element, S.Element) -> Int) -> Int {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?):
                let result = compare(x, y)
                if result != 0 { return result }
            }
        }
    }

    static func compareMembers(
        _ a: JSONObject, _ b: JSONObject, key: (String, String) -> Int, value: (JSONValue, JSONValue) -> Int
    ) -> Int {
        compareSequences(a.members.lazy.map { $0 }, b.members.lazy.map { $0 }) { x, y in
            let keyOrder = key(x.key, y.key)
            return keyOrder != 0 ? keyOrder : value(x.value, y.value)
        }
    }
}
