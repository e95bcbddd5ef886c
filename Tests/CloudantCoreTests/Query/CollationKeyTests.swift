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
    /// the 63 common weights one byte of a compressed level holds.
    static func runString(_ rng: inout some RandomNumberGenerator) -> String {
        let pieces = ["a", "b", "A", "Z", "e\u{301}", "é", "ø", "ß", "1", " ", "-", "\u{1}", "\u{200B}", "ǅ", "Ⅳ", "日"]
        var text = ""
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let piece = pieces.randomElement(using: &rng) ?? "a"
            let count = [1, 2, 61, 62, 63, 64, 125, 126, 127, 200].randomElement(using: &rng) ?? 1
            text += String(repeating: piece, count: Int.random(in: 0...1, using: &rng) == 0 ? count : 1)
        }
        return text
    }

    @Test func keyByteOrderEqualsCollationOnStringsWithLongRuns() {
        var rng = SystemRandomNumberGenerator()
        var strings = (0..<300).map { _ in Self.runString(&rng) }
        strings += ["", "a", "A", String(repeating: "a", count: 63), String(repeating: "a", count: 62) + "A",
                    String(repeating: "a", count: 63) + "A", String(repeating: "a", count: 64), String(repeating: "A", count: 63)]
        for a in strings {
            for b in strings.prefix(60) {
                let order = Self.byteOrder(CollationKey.of(.string(a)), CollationKey.of(.string(b)))
                #expect(order == Collation.compare(.string(a), .string(b)), "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
    }

    @Test func commonWeightsTakeOneBytePerRun() {
        // Type byte; 33 primaries and the end; the secondary level: one run and the end; the tertiary level:
        // H, K, Q, then a run before each of T, I, S, C, a last run and the end. No level of code points.
        let key = CollationKey.of("HKQuantityTypeIdentifierStepCount")
        #expect(key.count == 1 + 34 + 2 + 13, "\(key.count) bytes")  // 137 before runs were compressed
        let date = CollationKey.of("2026-11-10T10:00:00.000Z")
        // 1 + (24 + 1) + (1 + 1) + (10 lower, T, 12 lower, Z: 4 tokens + 1)
        #expect(date.count == 1 + 25 + 2 + 5)
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

    @Test func printableASCIIStringsGetTheGeneralPathsBytesSoStoredEntriesStillMatch() {
        let printable = (0x20..<0x7F).map { Character(Unicode.Scalar(UInt8($0))) }
        var strings = [String(printable), "", " ", "HKQuantityTypeIdentifierHeartRate", "2024-05-01T08:00:00.000Z", "a-b_c.D"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...24, using: &generator)
            strings.append(String((0..<length).map { _ in printable.randomElement(using: &generator)! }))
        }
        for string in strings {
            var fast: [UInt8] = []
            CollationKey.appendString(string, to: &fast)
            var general: [UInt8] = []
            CollationKey.appendWeights(of: string, to: &general)
            #expect(fast == general, "\(string)")
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
        for inside in ["ab", "abc", "ab-", "abZ", "aB", "Ab", "ábc"] {
            let key = CollationKey.of(.string(inside))
            #expect(!key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper), "\(inside)")
        }
        for outside in ["a", "b", "ac", "a", "", "aa"] {
            let key = CollationKey.of(.string(outside))
            #expect(key.lexicographicallyPrecedes(range.lower) || !key.lexicographicallyPrecedes(range.upper), "\(outside)")
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
