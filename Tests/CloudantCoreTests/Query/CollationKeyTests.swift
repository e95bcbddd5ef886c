@testable import CloudantCore
import PropertyBased
import Testing

@Suite("Collation keys (byte order = CouchDB collation)")
struct CollationKeyTests {
    static func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }

    @Test func keyByteOrderEqualsCollationOnRandomValuesM9M10() async {
        await propertyCheck(input: QueryGen.value, QueryGen.value) { a, b in
            #expect(
                Self.byteOrder(CollationKey.of(a), CollationKey.of(b)) == Collation.compare(a, b),
                "\(a.jsonString()) vs \(b.jsonString())")
        }
    }

    @Test func couchDBOperatorSuiteOrderHoldsForKeysM13() throws {
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
