/// A byte string whose plain byte order (`memcmp`) is CouchDB view collation: for any JSON values `a` and
/// `b`, comparing `CollationKey.of(a)` with `CollationKey.of(b)` byte by byte gives exactly
/// ``Collation/compare(_:_:)``, and equal keys mean collation-equal values.
///
/// This is what lets a JSON index live in an ordinary SQLite index: the key is computed once when a
/// document is written, and SQLite's fast binary comparison then sorts and range-scans in CouchDB's order
/// (strings are written as ICU's sort keys, which ICU makes for this very use). A custom SQLite collation would
/// recompute string weights on every comparison inside the B-tree instead.
///
/// ```swift
/// CollationKey.of("a").lexicographicallyPrecedes(CollationKey.of("A"))   // true, as "a" < "A"
/// CollationKey.of(1) == CollationKey.of(1.0)                             // true
/// ```
///
/// Layout: one type byte in CouchDB's type order, then
/// - numbers: the value as an order-preserving double, then, from 2^53 on, an exact tie-break for integers;
/// - strings: ICU's sort key, which CouchDB's own b-tree comparisons agree with, ending in its `0x00`
///   (`appendString(_:to:)`);
/// - arrays: each element's key, then `0x00` (so a prefix sorts first);
/// - objects: `0x01` + the member name's sort key + the value's key per member, then `0x00`.
public enum CollationKey {
    /// The type bytes, in CouchDB's order. `0x00` is kept for terminators.
    enum TypeByte {
        static let null: UInt8 = 0x01
        static let `false`: UInt8 = 0x02
        static let `true`: UInt8 = 0x03
        static let number: UInt8 = 0x04
        static let string: UInt8 = 0x05
        static let array: UInt8 = 0x06
        static let object: UInt8 = 0x07
    }

    static let terminator: UInt8 = 0x00
    static let memberMarker: UInt8 = 0x01

    /// The collation key of a JSON value.
    public static func of(_ value: JSONValue) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(24)
        append(value, to: &key)
        return key
    }

    /// The smallest key of any value of `value`'s JSON type, and the smallest key of the next type: every
    /// value of that type has a key in `lower ..< upper`.
    public static func typeRange(of value: JSONValue) -> (lower: [UInt8], upper: [UInt8]) {
        let type = typeByte(value)
        return ([type], [type + 1])
    }

    /// A bound below every key of strings whose bytes start with `prefix`, and one above them all, when the
    /// prefix is ASCII; `nil` otherwise.
    ///
    /// The key of such a string starts with the prefix's primary bytes: in ICU's root collation no ASCII
    /// character joins what follows it into one collation element. So they sit in one key range, together
    /// with strings that differ from the prefix only in case, accents or ignorable characters; `$beginsWith`
    /// re-checks the bytes of every candidate. The upper bound is the lower one with its last byte raised
    /// (carrying), not `0xFF` appended: `U+FFFF`'s primary weight is `FF FF`, so `"ab\u{FFFF}"` has a
    /// key above `lower + [0xFF]`.
    public static func prefixRange(_ prefix: String) -> (lower: [UInt8], upper: [UInt8])? {
        guard prefix.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var lower: [UInt8] = [TypeByte.string]
        if let table = ASCIISortKey.shared {
            table.appendPrimary(prefix.utf8, to: &lower)
        } else {
            var key: [UInt8] = []
            ICUCollator.appendSortKey(of: prefix, to: &key)
            lower += key.prefix { $0 != 0x01 }
        }
        var upper = lower
        while let last = upper.last, last == 0xFF { upper.removeLast() }
        upper[upper.count - 1] += 1  // the type byte is below 0xFF, so something is left to raise
        return (lower, upper)
    }

    // MARK: - Encoding

    static func typeByte(_ value: JSONValue) -> UInt8 {
        switch value {
        case .null: TypeByte.null
        case .bool(false): TypeByte.false
        case .bool(true): TypeByte.true
        case .number: TypeByte.number
        case .string: TypeByte.string
        case .array: TypeByte.array
        case .object: TypeByte.object
        }
    }

    static func append(_ value: JSONValue, to key: inout [UInt8]) {
        key.append(typeByte(value))
        switch value {
        case .null, .bool: break
        case .number(let number): appendNumber(number, to: &key)
        case .string(let string): appendString(string, to: &key)
        case .array(let elements):
            for element in elements { append(element, to: &key) }
            key.append(terminator)
        case .object(let object):
            for (name, member) in object.members {
                key.append(memberMarker)
                appendString(name, to: &key)
                append(member, to: &key)
            }
            key.append(terminator)
        }
    }

    /// A double in 8 bytes whose byte order is numeric order, then, from `2^53` in magnitude, 9 bytes that
    /// break ties between integers that round to the same double (`2^53` and `2^53 + 1`).
    ///
    /// Rounding to the nearest double never reverses an order, so the first 8 bytes are non-decreasing in
    /// the exact value; values with equal doubles are integral (or identical), and the tie-break orders
    /// them by exact value, with doubles beyond Int64's range after every integer. Below `2^53` every
    /// integer is exactly its double, so no two different numbers share the 8 bytes and the tie-break is
    /// left out (half of a number's key, and of most numeric index entries); keys of equal doubles are
    /// then all short or all long, so the order between them is decided either way.
    static func appendNumber(_ number: JSONNumber, to key: inout [UInt8]) {
        let approximate: Double
        var exact: (flag: UInt8, bits: UInt64)
        switch number {
        case .integer(let integer):
            approximate = Double(integer)
            exact = (1, UInt64(bitPattern: integer) ^ (1 << 63))
        case .bigInteger:
            // Beyond Int64 the key keeps the nearest double only: big integers that round to the same double
            // tie in an index (the query engine's in-memory comparison still orders them exactly).
            approximate = number.doubleValue
            exact = approximate < 0 ? (0, 0) : (2, 0)
        case .double(let double):
            approximate = double
            if double.isNaN {
                key.append(contentsOf: [UInt8](repeating: 0, count: 8))  // below every number, as Collation has it
                return
            } else if double >= 9_223_372_036_854_775_808.0 {
                exact = (2, 0)
            } else if double >= -9_223_372_036_854_775_808.0, double.rounded(.towardZero) == double {
                exact = (1, UInt64(bitPattern: Int64(double)) ^ (1 << 63))
            } else {
                exact = (1, 0)  // Not integral (or below every Int64): the double alone decides.
            }
        }
        // -0.0 equals 0.0; order-preserving bits: flip every bit of negatives, the sign bit of positives.
        let bits = (approximate == 0 ? 0.0 : approximate).bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        appendBigEndian(ordered, to: &key)
        guard approximate.magnitude >= 9_007_199_254_740_992.0 else { return }
        key.append(exact.flag)
        appendBigEndian(exact.bits, to: &key)
    }

    /// ICU's sort key of the string with its terminating `0x00` (``ICUCollator/appendSortKey(of:to:)``): its
    /// bytes order as ``Collation/compareStrings(_:_:)`` does, strings equal at ICU's tertiary strength share
    /// it, and no byte before the terminator is `0x00`, so a string is followed by the next value's type byte
    /// or an array's terminator. ASCII strings take ``ASCIISortKey``'s table, which writes the same bytes.
    static func appendString(_ string: String, to key: inout [UInt8]) {
        if let table = ASCIISortKey.shared, string.utf8.allSatisfy({ $0 < 0x80 }) {
            table.append(string.utf8, to: &key)
        } else {
            ICUCollator.appendSortKey(of: string, to: &key)
        }
    }

    private static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
