/// A byte string whose plain byte order (`memcmp`) is CouchDB view collation: for any JSON values `a` and
/// `b`, comparing `CollationKey.of(a)` with `CollationKey.of(b)` byte by byte gives exactly
/// ``Collation/compare(_:_:)``, and equal keys mean collation-equal values.
///
/// This is what lets a JSON index live in an ordinary SQLite index: the key is computed once when a
/// document is written, and SQLite's fast binary comparison then sorts and range-scans in CouchDB's order
/// (an ICU sort key plays the same role for strings in CouchDB itself). A custom SQLite collation would
/// recompute string weights on every comparison inside the B-tree instead.
///
/// ```swift
/// CollationKey.of("a").lexicographicallyPrecedes(CollationKey.of("A"))   // true, as "a" < "A"
/// CollationKey.of(1) == CollationKey.of(1.0)                             // true
/// ```
///
/// Layout: one type byte in CouchDB's type order, then
/// - numbers: the value as an order-preserving double, then, from 2^53 on, an exact tie-break for integers;
/// - strings: the collation weights of each level (primary, secondary, tertiary), each level ended by
///   `0x00`; the secondary and tertiary levels are mostly the common weight (no accent, lower case),
///   so there each run of it is one byte that also encodes whether the level ends after it
///   (`appendCompressedLevel(_:common:to:)`, ICU's compression of common weights);
/// - arrays: each element's key, then `0x00` (so a prefix sorts first);
/// - objects: `0x01` + the member name's string levels + the value's key per member, then `0x00`.
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
    /// prefix is ASCII (whose weights do not depend on what follows); `nil` otherwise.
    ///
    /// Strings that start with the same bytes share their leading primary weights, so they sit in one key
    /// range, together with strings that differ from the prefix only in case or accents; `$beginsWith`
    /// re-checks the bytes of every candidate.
    public static func prefixRange(_ prefix: String) -> (lower: [UInt8], upper: [UInt8])? {
        guard prefix.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var lower: [UInt8] = [TypeByte.string]
        for weight in StringCollationKey(prefix).primary { appendPrimary(weight, to: &lower) }
        return (lower, lower + [0xFF])
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

    /// The three collation levels of ``Collation/compareStrings(_:_:)``, each ended by a terminator so that
    /// a string whose weights are a prefix of another's sorts first, level by level. Strings equal at all
    /// three (differing only in ignorable characters) have equal keys, as ICU's tertiary strength, which
    /// CouchDB collates with, has them equal.
    static func appendString(_ string: String, to key: inout [UInt8]) {
        if string.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            appendPrintableASCII(string, to: &key)
            return
        }
        appendWeights(of: string, to: &key)
    }

    /// The general path of ``appendString(_:to:)``, for any string (and, in tests, the reference the ASCII
    /// path must match byte for byte: stored index entries were written with these bytes).
    static func appendWeights(of string: String, to key: inout [UInt8]) {
        let weights = StringCollationKey(string)
        for weight in weights.primary { appendPrimary(weight, to: &key) }
        key.append(terminator)
        appendCompressedLevel(weights.secondary, common: StringCollationKey.commonSecondary, to: &key)
        appendCompressedLevel(weights.tertiary, common: StringCollationKey.commonTertiary, to: &key)
    }

    // MARK: Compressed levels

    /// Writes a level whose weights are never below `common` (the secondary and tertiary levels), then its
    /// terminator, with each run of `common` as one byte.
    ///
    /// A level is `cᵏ⁰ h₁ cᵏ¹ h₂ … cᵏⁿ` then the end, with every `h` above `c` and the end below it. Compared
    /// byte by byte, a longer run sorts *after* a shorter one when the end follows both, and *before* it when
    /// a higher weight follows; and a run before the end sorts before any run before a higher weight. So a
    /// run followed by the end is written `k` (`0x01…0x3E`), a run followed by a higher weight `0x7F - k`
    /// (`0x7E…0x41`), and the other weights from `0x81` up (``appendUncommon(_:to:)``); a run of 63 or more
    /// is written in pieces of 63 (`0x3F` before the end, `0x40` before a higher weight), each sorting past
    /// every shorter piece in its direction. Byte order is then exactly the order of the weights (the
    /// properties in `CollationKeyTests` check it over random strings with long runs), and an ASCII string's
    /// secondary level, `n` common weights, takes one byte instead of `n + 1`.
    static func appendCompressedLevel(_ weights: [UInt32], common: UInt32, to key: inout [UInt8]) {
        var run = 0
        for weight in weights {
            if weight == common {
                run += 1
            } else {
                appendRun(run, beforeHigherWeight: true, to: &key)
                run = 0
                appendUncommon(weight - common, to: &key)
            }
        }
        appendRun(run, beforeHigherWeight: false, to: &key)
        key.append(terminator)
    }

    /// The longest run one byte holds.
    private static let runPiece = 63

    /// A run of `count` common weights, followed by a higher weight or by the level's end.
    @inline(__always)
    static func appendRun(_ count: Int, beforeHigherWeight: Bool, to key: inout [UInt8]) {
        var count = count
        while count >= runPiece {
            key.append(beforeHigherWeight ? 0x40 : 0x3F)
            count -= runPiece
        }
        guard count > 0 else { return }
        key.append(beforeHigherWeight ? UInt8(0x7F - count) : UInt8(count))
    }

    /// A weight `difference` above the common one: `0x80 + difference` below 0x3F (case, most tertiary
    /// differences), else `0xC0` and the difference in 4 bytes (accents, whose secondary weights are
    /// their code points).
    @inline(__always)
    static func appendUncommon(_ difference: UInt32, to key: inout [UInt8]) {
        if difference < 0x3F {
            key.append(0x80 + UInt8(difference))
        } else {
            key.append(0xC0)
            for shift in stride(from: 24, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: difference >> UInt32(shift))) }
        }
    }

    /// The same bytes as the general path for printable ASCII, without building weight arrays: most keys
    /// (ids, codes, enum-like values) are ASCII. One table read per byte decides the primary weight and
    /// whether the byte counts at the lower levels (the bytes with no primary weight are ignorable there
    /// too). Every counted byte has the common secondary weight, so that level is one run; at the tertiary
    /// level an upper-case letter is the one weight above the common one.
    private static func appendPrintableASCII(_ string: String, to key: inout [UInt8]) {
        let primary = StringCollationKey.printableASCIIPrimary
        var string = string
        string.withUTF8 { utf8 in
            var counted = 0
            for byte in utf8 {
                let weight = primary[Int(byte)]
                guard weight != 0 else { continue }
                key.append(weight)
                counted += 1
            }
            key.append(terminator)
            appendRun(counted, beforeHigherWeight: false, to: &key)
            key.append(terminator)
            var lower = 0
            for byte in utf8 where primary[Int(byte)] != 0 {
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                    appendRun(lower, beforeHigherWeight: true, to: &key)
                    lower = 0
                    appendUncommon(StringCollationKey.upperTertiary - StringCollationKey.commonTertiary, to: &key)
                } else {
                    lower += 1
                }
            }
            appendRun(lower, beforeHigherWeight: false, to: &key)
            key.append(terminator)
        }
    }

    /// First bytes of primary weights. ASCII punctuation (ranks 1…33), digits and Latin letters take one
    /// byte each, in ICU's group order; other symbols and letters take an escape byte placed where their
    /// group sorts, then their code point in 3 bytes. Keys stay short (index entries are mostly ASCII) and
    /// the order is that of the weights.
    enum PrimaryByte {
        static let otherPunctuation: UInt8 = 0x22  // after ASCII punctuation, before digits
        static let digitZero: UInt8 = 0x30
        static let letterA: UInt8 = 0x41
        static let otherLetter: UInt8 = 0x5B  // after z
    }

    /// Appends one primary weight in the compact form ``PrimaryByte`` describes.
    static func appendPrimary(_ weight: UInt32, to key: inout [UInt8]) {
        if weight < StringCollationKey.digitGroup {
            let rank = weight - StringCollationKey.punctuationGroup
            if rank < 0x100 {
                key.append(UInt8(rank))  // ASCII punctuation: ranks 1…33
            } else {
                appendEscaped(PrimaryByte.otherPunctuation, rank - 0x100, to: &key)
            }
        } else if weight < StringCollationKey.letterGroup {
            key.append(PrimaryByte.digitZero + UInt8(weight - StringCollationKey.digitGroup))
        } else {
            let letter = weight - StringCollationKey.letterGroup
            if letter >= 0x61 && letter <= 0x7A {
                key.append(PrimaryByte.letterA + UInt8(letter - 0x61))
            } else {
                appendEscaped(PrimaryByte.otherLetter, letter, to: &key)
            }
        }
    }

    private static func appendEscaped(_ escape: UInt8, _ value: UInt32, to key: inout [UInt8]) {
        key.append(escape)
        key.append(UInt8(truncatingIfNeeded: value >> 16))
        key.append(UInt8(truncatingIfNeeded: value >> 8))
        key.append(UInt8(truncatingIfNeeded: value))
    }

    private static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
