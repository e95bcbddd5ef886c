internal import Foundation

extension Collation {
    /// Compares two strings in an approximation of ICU's root collation (UCA, tertiary strength), which is
    /// what CouchDB uses for view keys and Mango comparisons.
    ///
    /// Each string is put in canonical decomposition (NFD) and turned into collation elements, which are
    /// compared level by level over the whole string, as the UCA does:
    ///
    /// 1. **Primary** — the base character: whitespace and punctuation/symbols first, then digits, then
    ///    letters, case- and accent-blind. ASCII follows ICU's root order exactly:
    ///    `TAB LF VT FF CR SPACE _ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~ $ 0 … 9 a … z`.
    ///    A shorter string whose elements are a prefix of the other's sorts first (`"a" < "aa"`).
    /// 2. **Secondary** — accents: an unaccented letter before an accented one (`"e" < "é" < "f"`).
    /// 3. **Tertiary** — case: lowercase before uppercase (`"a" < "A" < "aa" < "b"`).
    ///
    /// Strings equal at all three levels are equal, as at ICU's default (tertiary) strength, with which
    /// CouchDB compares: canonically equivalent strings, and strings that differ only in ignorable
    /// characters (most control and format characters: `"ab"` equals `"a\u{1}b"`). CouchDB then orders
    /// view and index rows with equal keys by document id, and so does the store.
    ///
    /// Where it can differ from ICU:
    /// - Non-ASCII punctuation and symbols all sort after the ASCII ones (by code point) and before digits;
    ///   ICU interleaves them (for example `«` or `§` among the ASCII punctuation).
    /// - Letters outside Latin sort after `z` by code point of their lowercase form; that matches ICU's
    ///   script order for Greek, Cyrillic, Hebrew, Arabic, CJK, but not its order *within* complex scripts,
    ///   contractions, or locale-independent special cases (Hangul, Thai reordering, …).
    /// - Compatibility variants (fullwidth `Ａ`, ligature `ﬁ`, superscript `²`) are not folded to their base
    ///   letter; ICU gives them the base's primary weight. Only `æ œ ß` (expansions) and `ø ł đ ħ` (letter
    ///   plus stroke) are special-cased.
    /// - Non-ASCII decimal digits share the ASCII digit's primary weight and differ at the tertiary level.
    ///
    /// - Returns: `-1`, `0` or `1`.
    public static func compareStrings(_ a: String, _ b: String) -> Int {
        // Swift's `==` is canonical equivalence, and canonically equivalent strings have equal weights below.
        if a == b { return 0 }
        return comparePrintableASCII(a, b) ?? compareByWeights(a, b)
    }

    /// ``compareStrings(_:_:)`` by the general path: every level's weights built in full.
    static func compareByWeights(_ a: String, _ b: String) -> Int {
        let left = StringCollationKey(a)
        let right = StringCollationKey(b)
        let intCompare: (UInt32, UInt32) -> Int = { $0 == $1 ? 0 : ($0 < $1 ? -1 : 1) }
        for level in [\StringCollationKey.primary, \.secondary, \.tertiary] {
            let result = compareSequences(left[keyPath: level], right[keyPath: level], by: intCompare)
            if result != 0 { return result }
        }
        return 0
    }

    /// The same answer as the general path for two strings of printable ASCII, without building weight
    /// arrays: dates, ids and codes are ASCII, and range conditions compare them once per candidate row.
    /// Level by level as ``compareStrings(_:_:)``: primary bytes (the order `CollationKey` writes), then case
    /// (every character has the common accent weight, so the secondary level cannot differ once the primary
    /// level is equal; and printable ASCII strings equal in primary weights and case are the same bytes).
    /// Nil when either string has another character.
    static func comparePrintableASCII(_ a: String, _ b: String) -> Int? {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right -> Int? in
                let table = StringCollationKey.printableASCIIPrimary
                let common = min(left.count, right.count)
                for offset in 0..<common {
                    let l = left[offset]
                    let r = right[offset]
                    guard l < 0x80, r < 0x80 else { return nil }
                    let lp = table[Int(l)]
                    let rp = table[Int(r)]
                    guard lp != 0, rp != 0 else { return nil }
                    if lp != rp { return lp < rp ? -1 : 1 }
                }
                for byte in left[common...] where byte >= 0x80 || table[Int(byte)] == 0 { return nil }
                for byte in right[common...] where byte >= 0x80 || table[Int(byte)] == 0 { return nil }
                if left.count != right.count { return left.count < right.count ? -1 : 1 }
                for offset in 0..<common {
                    let l = (0x41...0x5A).contains(left[offset])
                    let r = (0x41...0x5A).contains(right[offset])
                    if l != r { return l ? 1 : -1 }
                }
                return 0
            }
        }
    }
}

/// The weights of one string at each collation level; see ``Collation/compareStrings(_:_:)``.
struct StringCollationKey {
    var primary: [UInt32] = []
    var secondary: [UInt32] = []
    var tertiary: [UInt32] = []

    // Primary weight groups, far enough apart that no weight in one reaches the next.
    static let punctuationGroup: UInt32 = 0
    static let digitGroup: UInt32 = 0x0200_0000
    static let letterGroup: UInt32 = 0x0400_0000
    /// The secondary weight of a base character; every accent weighs more.
    static let commonSecondary: UInt32 = 1
    /// The tertiary weight of a lower-case letter and of most other characters: the lowest.
    static let commonTertiary: UInt32 = 0
    /// The tertiary weight of an upper-case letter.
    static let upperTertiary: UInt32 = 1
    /// The secondary weight of the stroke in `ø ł đ ħ` (U+0335 COMBINING SHORT STROKE OVERLAY).
    static let strokeSecondary: UInt32 = 0x335

    /// ICU root's order of ASCII whitespace, punctuation and symbols; everything here sorts before digits.
    static let asciiPunctuationOrder: [UInt8] = Array("\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".utf8)
    static let asciiPunctuationRank: [UInt8: UInt32] = Dictionary(
        uniqueKeysWithValues: asciiPunctuationOrder.enumerated().map { ($0.element, UInt32($0.offset + 1)) }
    )
    static let spaceRank: UInt32 = asciiPunctuationRank[0x20] ?? 6

    /// For each printable ASCII byte, its one-byte primary weight as `CollationKey` writes it (punctuation
    /// ranks, then digits, then letters case-blind); 0 for every other byte.
    static let printableASCIIPrimary: [UInt8] = (0..<128).map { code -> UInt8 in
        let byte = UInt8(code)
        switch byte {
        case 0x30...0x39: return CollationKey.PrimaryByte.digitZero + (byte - 0x30)
        case 0x61...0x7A: return CollationKey.PrimaryByte.letterA + (byte - 0x61)
        case 0x41...0x5A: return CollationKey.PrimaryByte.letterA + (byte - 0x41)
        case 0x20...0x7E: return asciiPunctuationRank[byte].map { UInt8($0) } ?? 0
        default: return 0
        }
    }

    /// Latin letters that ICU expands or treats as a base letter plus a stroke, but NFD leaves alone.
    static let specialLatin: [UInt32: (letters: String, stroke: Bool, upper: Bool)] = [
        0xE6: ("ae", false, false), 0xC6: ("ae", false, true),  // æ Æ
        0x153: ("oe", false, false), 0x152: ("oe", false, true),  // œ Œ
        0xDF: ("ss", false, false), 0x1E9E: ("ss", false, true),  // ß ẞ
        0xF8: ("o", true, false), 0xD8: ("o", true, true),  // ø Ø
        0x142: ("l", true, false), 0x141: ("l", true, true),  // ł Ł
        0x111: ("d", true, false), 0x110: ("d", true, true),  // đ Đ
        0x127: ("h", true, false), 0x126: ("h", true, true),  // ħ Ħ
    ]

    init(_ string: String) {
        for scalar in string.decomposedStringWithCanonicalMapping.unicodeScalars { append(scalar) }
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        if value < 0x80 {
            appendASCII(UInt8(value))
            return
        }
        if value == 0xFFFF {
            // ICU's root collation (CLDR) gives U+FFFF the highest primary weight of all, which is why CouchDB
            // users end a prefix range with it (`endkey: "ba\\uffff"`); above every letter here.
            appendElement(Self.letterGroup + 0xFF_FFFF, tertiary: 0)
            return
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark:
            // An accent only weighs at the secondary level, after the base it follows.
            secondary.append(Self.commonSecondary + value)
            return
        case .control, .format:
            return  // Ignorable, as in ICU.
        default:
            break
        }
        if let special = Self.specialLatin[value] {
            for letter in special.letters.utf8 {
                appendElement(Self.letterGroup + UInt32(letter), tertiary: special.upper ? 1 : 0)
            }
            // ICU gives æ œ ß a tertiary difference from the plain letters they expand to.
            if !special.stroke { tertiary[tertiary.count - 1] += 2 }
            if special.stroke { secondary.append(Self.strokeSecondary) }
            return
        }
        if properties.isWhitespace {
            appendElement(Self.punctuationGroup + Self.spaceRank, tertiary: 2)
        } else if properties.numericType == .decimal, let digit = properties.numericValue {
            appendElement(Self.digitGroup + UInt32(max(0, min(9, Int(digit)))), tertiary: 2)
        } else if properties.isAlphabetic {
            let lower = properties.lowercaseMapping.unicodeScalars.first?.value ?? value
            let upper = properties.isUppercase || properties.generalCategory == .titlecaseLetter
            appendElement(Self.letterGroup + lower, tertiary: upper ? 1 : 0)
        } else {
            appendElement(Self.punctuationGroup + 0x100 + value, tertiary: 0)
        }
    }

    private mutating func appendASCII(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            appendElement(Self.digitGroup + UInt32(byte - UInt8(ascii: "0")), tertiary: 0)
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            appendElement(Self.letterGroup + UInt32(byte), tertiary: 0)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            appendElement(Self.letterGroup + UInt32(byte + 0x20), tertiary: 1)
        default:
            // Other control characters (NUL, ESC, DEL, …) are ignorable in ICU.
            if let rank = Self.asciiPunctuationRank[byte] {
                appendElement(Self.punctuationGroup + rank, tertiary: 0)
            }
        }
    }

    private mutating func appendElement(_ primaryWeight: UInt32, tertiary tertiaryWeight: UInt32) {
        primary.append(primaryWeight)
        secondary.append(Self.commonSecondary)
        tertiary.append(tertiaryWeight)
    }
}
