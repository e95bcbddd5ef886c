/// ICU's sort key of a string of ASCII characters, written from a table instead of by ICU: the same bytes
/// about twenty times faster. Ids, dates, codes and type names are ASCII, and every JSON index entry and
/// view row computes keys of them.
///
/// The table is ICU's own answer for each of the 128 characters, read when it is first needed. In the root
/// collation an ASCII character is either ignorable (`NUL`, most control characters) or one collation
/// element: a primary weight of one or two bytes, the common secondary weight, and a tertiary weight that is
/// the common one except for upper-case letters. A string's sort key is then, level by level, separated by
/// `0x01`:
/// - primary: the characters' primary bytes, one after another;
/// - secondary: `n` common weights in ICU's compressed form (`0x05 + (n - 1)`, with `0x25` for each full
///   33 of them);
/// - tertiary: each run of common weights compressed by what follows it (the end of the level:
///   `0x05 + (k - 1)`; a higher weight: `0xC5 - (k - 1)`; `0x65` for each full 97), and the other
///   weights as they are;
///
/// then `0x00`. When ICU's single-character keys do not have that shape, or a handful of test strings come
/// out differently from ICU's (another ICU version might change the format), ``shared`` is `nil` and every
/// string goes to ICU. `ASCIISortKeyTests` checks every pair of characters and long random strings
/// against ICU.
struct ASCIISortKey: Sendable {
    /// Per character: its primary bytes (one or two; none when the character is ignorable) in the low 16
    /// bits, the high byte first, and their count in bits 16–17.
    private let primary: [UInt32]
    /// Per character: its tertiary byte; 0 when the character is ignorable.
    private let tertiary: [UInt8]
    /// Whether no two characters that are not ignorable have the same weights at every level, so that two
    /// strings of such characters are equal exactly when they are the same bytes (``equality(_:_:)``).
    private let distinctWeights: Bool
    /// Whether no character's primary bytes begin another's (no one-byte primary is the lead byte of a
    /// two-byte one), so that the first character whose primary bytes differ decides the primary level
    /// (``order(_:_:)``).
    private let prefixFreePrimaries: Bool

    private static let levelSeparator: UInt8 = 0x01
    private static let common: UInt8 = 0x05
    private static let secondaryMiddle: UInt8 = 0x25
    private static let secondaryMaxRun = 33
    private static let tertiaryMiddle: UInt8 = 0x65
    private static let tertiaryHigh: UInt8 = 0xC5
    private static let tertiaryMaxRun = 97

    /// The table ICU's root collator gives, or `nil` when ICU's keys are not of the shape described above.
    static let shared: ASCIISortKey? = {
        guard let table = ASCIISortKey(readingICU: ()) else { return nil }
        let probes = [
            "", "a", "A", "aA", "Aa", "W", "Hello, World!", "\t\r\n x_-", "2024-05-17T10:00:00Z", "\u{1}a\u{7F}",
            String(repeating: "a", count: 300), String(repeating: "a", count: 200) + "A",
            String(repeating: "Z", count: 150) + "z",
        ]
        for probe in probes {
            var fast: [UInt8] = []
            var icu: [UInt8] = []
            table.append(probe.utf8, to: &fast)
            ICUCollator.appendSortKey(of: probe, to: &icu)
            if fast != icu { return nil }
        }
        return table
    }()

    private init?(readingICU: Void) {
        var primary = [UInt32](repeating: 0, count: 128)
        var tertiary = [UInt8](repeating: 0, count: 128)
        for code in 0..<128 {
            var key: [UInt8] = []
            ICUCollator.appendSortKey(of: String(UnicodeScalar(UInt8(code))), to: &key)
            guard key.last == 0 else { return nil }
            let levels = key.dropLast().split(separator: Self.levelSeparator, omittingEmptySubsequences: false)
            guard levels.count == 3 else { return nil }
            let (p, s, t) = (Array(levels[0]), Array(levels[1]), Array(levels[2]))
            if p.isEmpty && s.isEmpty && t.isEmpty { continue }  // ignorable
            guard (1...2).contains(p.count), s == [Self.common], t.count == 1, t[0] >= Self.common else { return nil }
            primary[code] = UInt32(p.count) << 16 | p.reduce(0) { $0 << 8 | UInt32($1) }
            tertiary[code] = t[0]
        }
        self.primary = primary
        self.tertiary = tertiary
        let weighed = (0..<128).filter { primary[$0] != 0 }.map { UInt64(primary[$0]) << 8 | UInt64(tertiary[$0]) }
        distinctWeights = Set(weighed).count == weighed.count
        let singles = Set((0..<128).filter { primary[$0] >> 16 == 1 }.map { primary[$0] & 0xFF })
        prefixFreePrimaries = (0..<128).allSatisfy { primary[$0] >> 16 != 2 || !singles.contains(primary[$0] >> 8 & 0xFF) }
    }

    /// How ICU orders two strings, when that is known without ICU: strings of ASCII characters that are not
    /// ignorable compare by their characters' primary weights, and if those are all equal (then so is their
    /// number, and every secondary weight is the common one) by their tertiary weights. Nil otherwise.
    /// Range conditions on dates, ids and codes ask this of every candidate.
    func order(_ a: String, _ b: String) -> Int? {
        guard distinctWeights, prefixFreePrimaries else { return nil }
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right -> Int? in
                for byte in left where byte >= 0x80 || primary[Int(byte)] == 0 { return nil }
                for byte in right where byte >= 0x80 || primary[Int(byte)] == 0 { return nil }
                for (l, r) in zip(left, right) where l != r {
                    // Primary bytes left-aligned in 16 bits: lexicographic order, as none is a prefix of another.
                    let lp = primary[Int(l)] >> 16 == 1 ? (primary[Int(l)] & 0xFF) << 8 : primary[Int(l)] & 0xFFFF
                    let rp = primary[Int(r)] >> 16 == 1 ? (primary[Int(r)] & 0xFF) << 8 : primary[Int(r)] & 0xFFFF
                    if lp != rp { return lp < rp ? -1 : 1 }
                }
                if left.count != right.count { return left.count < right.count ? -1 : 1 }
                for (l, r) in zip(left, right) where tertiary[Int(l)] != tertiary[Int(r)] {
                    return tertiary[Int(l)] < tertiary[Int(r)] ? -1 : 1
                }
                return 0
            }
        }
    }

    /// Whether ICU has two strings equal, when that is known without ICU: the same bytes are equal, and two
    /// different strings of ASCII characters that are not ignorable differ (their weights differ somewhere).
    /// Nil otherwise: a string with another character, or an ignorable one, may equal a different one.
    /// `$eq` and `$in` ask this of every candidate in an unindexed scan.
    func equality(_ a: String, _ b: String) -> Bool? {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right -> Bool? in
                if left.count == right.count, left.elementsEqual(right) { return true }
                guard distinctWeights else { return nil }
                for byte in left where byte >= 0x80 || primary[Int(byte)] == 0 { return nil }
                for byte in right where byte >= 0x80 || primary[Int(byte)] == 0 { return nil }
                return false
            }
        }
    }

    /// Appends the sort key of `utf8`, whose bytes are all below `0x80`, with its terminating `0x00`.
    func append(_ utf8: some Collection<UInt8>, to key: inout [UInt8]) {
        var counted = 0
        for byte in utf8 {
            let entry = primary[Int(byte)]
            switch entry >> 16 {
            case 1: key.append(UInt8(truncatingIfNeeded: entry))
            case 2: key.append(UInt8(truncatingIfNeeded: entry >> 8)); key.append(UInt8(truncatingIfNeeded: entry))
            default: continue
            }
            counted += 1
        }
        key.append(Self.levelSeparator)
        if counted > 0 { Self.appendRunAtEnd(counted, middle: Self.secondaryMiddle, maxRun: Self.secondaryMaxRun, to: &key) }
        key.append(Self.levelSeparator)
        var run = 0
        for byte in utf8 {
            let weight = tertiary[Int(byte)]
            if weight == Self.common {
                run += 1
            } else if weight != 0 {
                if run > 0 { Self.appendRunBeforeHigher(run, to: &key) }
                run = 0
                key.append(weight)
            }
        }
        if run > 0 { Self.appendRunAtEnd(run, middle: Self.tertiaryMiddle, maxRun: Self.tertiaryMaxRun, to: &key) }
        key.append(0)
    }

    /// The bytes of the primary level alone: what every string that starts with `utf8` starts its key with.
    func appendPrimary(_ utf8: some Collection<UInt8>, to key: inout [UInt8]) {
        for byte in utf8 {
            let entry = primary[Int(byte)]
            if entry >> 16 == 2 { key.append(UInt8(truncatingIfNeeded: entry >> 8)) }
            if entry >> 16 >= 1 { key.append(UInt8(truncatingIfNeeded: entry)) }
        }
    }

    /// A run of `count` common weights that ends its level.
    private static func appendRunAtEnd(_ count: Int, middle: UInt8, maxRun: Int, to key: inout [UInt8]) {
        var rest = count - 1
        while rest >= maxRun {
            key.append(middle)
            rest -= maxRun
        }
        key.append(common + UInt8(rest))
    }

    /// A run of `count` common tertiary weights followed by a higher weight.
    private static func appendRunBeforeHigher(_ count: Int, to key: inout [UInt8]) {
        var rest = count - 1
        while rest >= tertiaryMaxRun {
            key.append(tertiaryMiddle)
            rest -= tertiaryMaxRun
        }
        key.append(tertiaryHigh - UInt8(rest))
    }
}
