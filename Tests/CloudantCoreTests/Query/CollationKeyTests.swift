@testable import CloudantCore
import PropertyBased
import Testing

@Suite("Collation keys (byte order = CouchDB collation)")
struct CollationKeyTests {
    static func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }

    @Test func keyByteOrderEqualsCollationOnRandomValues() async {
        await propertyCheck(input: QueryGen.value, QueryGen.value) { a, b in
            #expect(
                Self.byteOrder(CollationKey.of(a), CollationKey.of(b)) == Collation.compare(a, b),
                "\(a.jsonString()) vs \(b.jsonString())")
        }
    }

    /// Strings built from runs of lower case, upper case, accents and other scripts, with runs longer than
    /// the common weights one byte of ICU's compressed secondary (33) and tertiary (97) levels holds.
    static func runString(_ rng: inout some RandomNumberGenerator) -> String {
        let pieces = ["a", "b", "A", "Z", "e\u{301}", "é", "ø", "ß", "1", " ", "-", "\u{1}", "\u{200B}", "ǅ", "Ⅳ", "日"]
        var text = ""
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let piece = pieces.randomElement(using: &rng) ?? "a"
            let count = [1, 2, 32, 33, 34, 66, 67, 96, 97, 98, 200].randomElement(using: &rng) ?? 1
            text += String(repeating: piece, count: Int.random(in: 0...1, using: &rng) == 0 ? count : 1)
        }
        return text
    }

    @Test func keyByteOrderEqualsCollationOnStringsWithLongRuns() {
        var rng = SystemRandomNumberGenerator()
        var strings = (0..<300).map { _ in Self.runString(&rng) }
        strings += ["", "a", "A", String(repeating: "a", count: 97), String(repeating: "a", count: 96) + "A",
                    String(repeating: "a", count: 97) + "A", String(repeating: "a", count: 98), String(repeating: "A", count: 33)]
        for a in strings {
            for b in strings.prefix(60) {
                let order = Self.byteOrder(CollationKey.of(.string(a)), CollationKey.of(.string(b)))
                #expect(order == Collation.compare(.string(a), .string(b)), "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
    }

    @Test func numbersBelow2To53TakeEightBytesAndTheirOrderHoldsAcrossTheBoundary() {
        #expect(CollationKey.of(.number(.integer(9_007_199_254_740_991))).count == 1 + 8)
        #expect(CollationKey.of(.number(.double(-0.25))).count == 1 + 8)
        #expect(CollationKey.of(.number(.integer(9_007_199_254_740_992))).count == 1 + 17)
        let two53 = 9_007_199_254_740_992.0
        let numbers: [JSONValue] = [
            .number(.double(-.infinity)), .number(.bigInteger("-100000000000000000000")), .number(.integer(Int64.min)),
            .number(.integer(-9_007_199_254_740_993)), .number(.double(-two53)), .number(.integer(-9_007_199_254_740_991)),
            .number(.double(-1.5)), .number(.integer(-1)), .number(.double(-0.0)), .number(.integer(0)), .number(.double(1e-300)),
            .number(.integer(1)), .number(.double(1.0)), .number(.integer(9_007_199_254_740_991)), .number(.double(9_007_199_254_740_991)),
            .number(.integer(9_007_199_254_740_992)), .number(.double(two53)), .number(.integer(9_007_199_254_740_993)),
            .number(.double(two53 * 2)), .number(.integer(Int64.max)), .number(.bigInteger("100000000000000000000")),
            .number(.double(.infinity)), .number(.double(.nan)), [1, "a"], [.number(.double(1.5)), "a"], [.number(.integer(9_007_199_254_740_993)), "a"],
        ]
        for a in numbers {
            for b in numbers {
                #expect(Self.byteOrder(CollationKey.of(a), CollationKey.of(b)) == Collation.compare(a, b), "\(a.jsonString()) vs \(b.jsonString())")
            }
        }
    }

    @Test func couchDBOperatorSuiteOrderHoldsForKeys() throws {
        let values: [JSONValue] = [nil, false, true, 9, 10000, "a", "A", "aa", ["a"], ["a": 1]]
        let keys = values.map(CollationKey.of)
        for index in keys.indices.dropLast() {
            #expect(keys[index].lexicographicallyPrecedes(keys[index + 1]), "\(values[index]) < \(values[index + 1])")
        }
    }

    @Test(arguments: [
        (JSONValue.number(.integer(9_007_199_254_740_993)), JSONValue.number(.double(9_007_199_254_740_992))),
        (.number(.integer(Int64.max)), .number(.double(9_223_372_036_854_775_808))),
        (.number(.double(-0.5)), .number(.integer(0))),
        (.number(.integer(-3)), .number(.double(-2.5))),
        (.string("e"), .string("é")), (.string("a b"), .string("ab")), (.string("ø"), .string("p")),
        (.string("Zebra"), .string("apple\u{0}")), (.array([]), .array([nil])), (.object([:]), .object(["": nil])),
    ])
    func keysOrderEdgeCasesAsCollationDoes(pair: (JSONValue, JSONValue)) {
        #expect(Self.byteOrder(CollationKey.of(pair.0), CollationKey.of(pair.1)) == Collation.compare(pair.0, pair.1))
        #expect(Self.byteOrder(CollationKey.of(pair.1), CollationKey.of(pair.0)) == Collation.compare(pair.1, pair.0))
    }

    @Test func aStringsKeyIsICUsSortKeyAfterTheTypeByte() {
        for string in ["", "a", "HKQuantityTypeIdentifierHeartRate", "caf\u{E9}", "\u{FB01}", "日本", "\u{1F3C3}"] {
            var sortKey: [UInt8] = []
            ICUCollator.appendSortKey(of: string, to: &sortKey)
            #expect(CollationKey.of(.string(string)) == [CollationKey.TypeByte.string] + sortKey, "\(string.debugDescription)")
            #expect(sortKey.last == 0 && !sortKey.dropLast().contains(0))
        }
    }

    @Test func equalValuesShareOneKey() {
        #expect(CollationKey.of(1) == CollationKey.of(1.0))
        #expect(CollationKey.of(0.0) == CollationKey.of(.number(.double(-0.0))))
        #expect(CollationKey.of("é") == CollationKey.of("e\u{301}"))
        #expect(CollationKey.of(["x": [1, "y"]]) == CollationKey.of(["x": [1.0, "y"]]))
    }

    @Test func stringsWithAnASCIIPrefixLieInsideThePrefixRange() throws {
        let range = try #require(CollationKey.prefixRange("ab"))
        for inside in ["ab", "abc", "ab-", "abZ", "aB", "Ab", "ábc", "ab\u{FFFF}", "ab\u{FFFF}\u{FFFF}z", "a\u{1}b"] {
            let key = CollationKey.of(.string(inside))
            #expect(!key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper), "\(inside)")
        }
        for outside in ["a", "b", "ac", "a", "", "aa", "a b", "ac\u{FFFF}"] {
            let key = CollationKey.of(.string(outside))
            #expect(key.lexicographicallyPrecedes(range.lower) || !key.lexicographicallyPrecedes(range.upper), "\(outside)")
        }
        #expect(CollationKey.prefixRange("ré") == nil)
    }

    /// What `$beginsWith` relies on: whatever follows an ASCII prefix (accents, other scripts, ignorables,
    /// U+FFFF), the string's key is inside the prefix's range.
    @Test func anyContinuationOfAnASCIIPrefixStaysInsideItsRange() throws {
        let ascii = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
        let tails = ["\u{301}", "\u{B7}", "\u{FFFF}", "\u{0}", "é", "ß", "ﬁ", "½", "日", "Ａ", "\u{200B}", "\u{10FFFF}", "z", "Z", " "]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let prefix = String((0..<Int.random(in: 0...6, using: &generator)).map { _ in ascii.randomElement(using: &generator)! })
            let tail = (0..<Int.random(in: 0...4, using: &generator)).map { _ in tails.randomElement(using: &generator)! }.joined()
            let range = try #require(CollationKey.prefixRange(prefix))
            let key = CollationKey.of(.string(prefix + tail))
            #expect(!key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper),
                    "\(prefix.debugDescription) + \(tail.debugDescription)")
        }
    }

    @Test func everyValueOfATypeLiesInsideItsTypeRange() async {
        await propertyCheck(input: QueryGen.value) { value in
            let range = CollationKey.typeRange(of: value)
            let key = CollationKey.of(value)
            #expect(!key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper))
        }
    }
}
