@testable import CloudantCore
import PropertyBased
import Testing

/// Parses JSON text in tests; the texts are literals, so a failure is a bug in the test.
func queryJSON(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

@Suite("Collation")
struct CollationTests {
    @Test func typesOrderNullFalseTrueNumbersStringsArraysObjects() {
        let ordered: [JSONValue] = [nil, false, true, -5, 0, 10000, "", "a", [], [nil], [:], ["a": 1]]
        for (index, value) in ordered.enumerated() {
            for later in ordered[(index + 1)...] {
                #expect(Collation.compare(value, later) == -1, "\(value) < \(later)")
                #expect(Collation.compare(later, value) == 1)
            }
            #expect(Collation.compare(value, value) == 0)
        }
    }

    @Test func numbersCompareByExactValueAcrossIntegerAndDouble() {
        #expect(Collation.compare(.number(.integer(1)), .number(.double(1.0))) == 0)
        #expect(Collation.compare(.number(.integer(2)), .number(.double(1.5))) == 1)
        #expect(Collation.compare(.number(.integer(-1)), .number(.double(-0.5))) == -1)
        // 2^53 + 1 is not a double; a lossy conversion would call these equal.
        #expect(Collation.compare(.number(.integer((1 << 53) + 1)), .number(.double(9_007_199_254_740_992))) == 1)
        #expect(Collation.compare(.number(.integer(.max)), .number(.double(9.3e18))) == -1)
        #expect(Collation.compare(.number(.integer(.min)), .number(.double(-9.3e18))) == 1)
    }

    @Test func lettersBeatCaseAndLowercaseComesFirst() {
        #expect(Collation.compareStrings("a", "A") == -1)
        #expect(Collation.compareStrings("A", "aa") == -1)
        #expect(Collation.compareStrings("aa", "b") == -1)
        #expect(Collation.compareStrings("B", "ba") == -1)
        #expect(Collation.compareStrings("ab", "Ab") == -1)
        #expect(Collation.compareStrings("Ab", "ac") == -1)
    }

    /// Orders CouchDB 3.5 gave (its `_find` with `$lt` and `sort` over a JSON index) where an imitation of
    /// ICU's weights went wrong: accents by their secondary weights, compatibility forms folded to their base
    /// characters, `½` among the digits.
    @Test func stringsOrderAsCouchDBsICUOrdersThem() {
        #expect(Collation.compareStrings("\u{E1}", "\u{E0}") == -1)  // á < à
        #expect(Collation.compareStrings("1", "\u{BD}") == -1)  // 1 < ½
        #expect(Collation.compareStrings("\u{BD}", "2") == -1)  // ½ < 2
        #expect(Collation.compareStrings("\u{FB01}", "fj") == -1)  // ﬁ < fj
        #expect(Collation.compareStrings("fi", "\u{FB01}") == -1)  // fi < ﬁ (tertiary)
        #expect(Collation.compareStrings("\u{E4}", "\u{E3}") == -1)  // ä < ã
        #expect(Collation.compareStrings("\u{E9}", "\u{E8}") == -1)  // é < è
        #expect(Collation.compareStrings("\u{FF21}", "b") == -1)  // Ａ < b
        #expect(Collation.compareStrings("\u{131}", "j") == -1)  // ı < j
        #expect(Collation.compareStrings("\u{AA}", "b") == -1)  // ª < b
        var sorted: [JSONValue] = ["\u{FB01}", "\u{E1}", "\u{BD}", "\u{E0}"]
        sorted.sort { Collation.compare($0, $1) < 0 }
        #expect(sorted == ["\u{BD}", "\u{E1}", "\u{E0}", "\u{FB01}"])
    }

    @Test func theCollatorReportsICUsVersions() {
        #expect(Collation.version.split(separator: ".").count >= 2)
        #expect(Collation.libraryVersion.split(separator: ".").allSatisfy { Int($0) != nil })
        #expect(Collation.algorithmVersion.split(separator: ".").allSatisfy { Int($0) != nil })
    }

    /// Every thread compares with a clone of its own; the answers are the same on all of them.
    @Test func threadsCompareAlike() async {
        let pairs: [(String, String)] = [("a", "A"), ("\u{E1}", "\u{E0}"), ("1", "\u{BD}"), ("x", "x"), ("b", "a")]
        let expected = pairs.map { Collation.compareStrings($0.0, $0.1) }
        await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<500).flatMap { _ in pairs.map { Collation.compareStrings($0.0, $0.1) } } }
            }
            for await answers in group {
                #expect(answers == Array((0..<500).map { _ in expected }.joined()))
            }
        }
    }

    @Test func uFFFFSortsAboveEveryLetterSoItEndsAPrefixRange() {
        // CLDR's root collation gives U+FFFF the highest primary weight: `endkey: "ba\uffff"` takes in "bar",
        // "baz" and "ba日" and stops before "bb".
        for inside in ["ba", "bar", "baz", "baZZZ", "ba日", "ba\u{10FFFF}"] {
            #expect(Collation.compareStrings(inside, "ba\u{FFFF}") == -1, "\(inside)")
        }
        #expect(Collation.compareStrings("ba\u{FFFF}", "bb") == -1)
        let keys = ["ba\u{FFFF}", "bar", "bb", "ba日"].map { CollationKey.of(.string($0)) }
        #expect(keys[1].lexicographicallyPrecedes(keys[0]) && keys[3].lexicographicallyPrecedes(keys[0]))
        #expect(keys[0].lexicographicallyPrecedes(keys[2]))
    }

    @Test func symbolsSortBeforeDigitsBeforeLetters() {
        #expect(Collation.compareStrings("_", "-") == -1)
        #expect(Collation.compareStrings("$", "0") == -1)
        #expect(Collation.compareStrings("~", "0") == -1)
        #expect(Collation.compareStrings("9", "a") == -1)
        #expect(Collation.compareStrings("10", "9") == -1)  // digit by digit, not numerically
        #expect(Collation.compareStrings(" ", "!") == -1)
        #expect(Collation.compareStrings("a-b", "ab") == -1)  // punctuation is not ignorable in CLDR root
    }

    @Test func accentsWeighBelowLettersButAboveNothing() {
        #expect(Collation.compareStrings("e", "é") == -1)
        #expect(Collation.compareStrings("é", "f") == -1)
        #expect(Collation.compareStrings("E", "é") == -1)  // accent (secondary) beats case (tertiary)
        #expect(Collation.compareStrings("resume", "résumé") == -1)
        #expect(Collation.compareStrings("résumé", "resumes") == -1)
        #expect(Collation.compareStrings("ø", "p") == -1)
        #expect(Collation.compareStrings("o", "ø") == -1)
    }

    @Test func canonicallyEquivalentStringsAreEqual() {
        #expect(Collation.compareStrings("\u{E9}", "e\u{301}") == 0)
        #expect(Collation.compare("\u{E9}", "e\u{301}") == 0)
    }

    /// ICU's tertiary strength, which CouchDB's `couch_ejson_compare` collates with and takes an answer of 0
    /// from as equal, gives ignorable characters no weight at any level.
    @Test func stringsThatDifferOnlyInIgnorableCharactersAreEqualAsInCouchDB() {
        for (a, b) in [("ab", "a\u{1}b"), ("", "\u{1}"), ("id", "i\u{200B}d"), ("A", "\u{7F}A\u{0}")] {
            #expect(Collation.compareStrings(a, b) == 0, "\(a.debugDescription) vs \(b.debugDescription)")
            #expect(Collation.equals(.string(a), .string(b)))
            #expect(CollationKey.of(.string(a)) == CollationKey.of(.string(b)))
        }
        // Not ignorable: punctuation and spaces weigh at the primary level, case at the tertiary.
        #expect(Collation.compareStrings("a b", "ab") == -1)
        #expect(!Collation.equals("a b", "ab"))
        #expect(!Collation.equals("a\u{1}b", "A\u{1}b"))
    }

    @Test func equalityWithoutWeightsAgreesWithCompareOnEveryPair() throws {
        let values: [JSONValue] = [
            nil, false, true, 0, 1, 1.0, -0.0, 2.5, "", "a", "A", "aa", "caf\u{E9}", "cafe\u{301}", "Cafe\u{301}",
            "\u{1}", "a\u{1}", "a\u{200B}", "A\u{1}", "\u{212B}", "\u{C5}", "\u{1F3C3}", [], [1], [1.0], ["caf\u{E9}"], ["cafe\u{301}"],
            ["a", 1], ["a", "1"], ["x": 1], ["x": 1.0], ["y": 1],
        ]
        for a in values {
            for b in values {
                #expect(Collation.equals(a, b) == (Collation.compare(a, b) == 0), "\(a) vs \(b)")
            }
        }
    }

    @Test func arraysCompareElementWiseWithPrefixFirst() {
        #expect(Collation.compare(["a"], ["b"]) == -1)
        #expect(Collation.compare(["b"], ["b", "c"]) == -1)
        #expect(Collation.compare(["b", "c", "a"], ["b", "d"]) == -1)
        #expect(Collation.compare([1, 2], [1.0, 2.0]) == 0)
    }

    @Test func objectsCompareMembersInStoredOrder() throws {
        let ab = try queryJSON(#"{"a":1,"b":2}"#)
        let ba = try queryJSON(#"{"b":2,"a":1}"#)
        #expect(Collation.compare(ab, ba) == -1)
        #expect(Collation.compare(["a": 1], ["a": 2]) == -1)
        #expect(Collation.compare(["b": 2], ["b": 2, "a": 1]) == -1)
        #expect(Collation.compare(["b": 2, "a": 1], ["b": 2, "c": 2]) == -1)
    }

    /// CouchDB's documented view collation example, shuffled and sorted back.
    @Test func sortingAMixedListGivesCouchDBsOrder() throws {
        let expected = try queryJSON(
            #"""
            [null, false, true, 1, 2, 3.0, 4, "a", "A", "aa", "b", "B", "ba", "bb",
             ["a"], ["b"], ["b","c"], ["b","c","a"], ["b","d"], ["b","d","e"],
             {"a":1}, {"a":2}, {"b":1}, {"b":2}, {"b":2,"a":1}, {"b":2,"c":2}]
            """#
        ).arrayValue ?? []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let sorted = expected.shuffled(using: &generator).sorted { Collation.compare($0, $1) < 0 }
            #expect(sorted.map { $0.jsonString() } == expected.map { $0.jsonString() })
        }
    }

    @Test func testVectorM13SelectsByCollationAcrossTypes() throws {
        let values = try queryJSON(#"[null, false, true, 9, 10000, "a", "A", "aa"]"#).arrayValue ?? []
        let lte = values.filter { Collation.compare($0, "a") <= 0 }
        let gte = values.filter { Collation.compare($0, "a") >= 0 }
        #expect(lte == [nil, false, true, 9, 10000, "a"])
        #expect(gte == ["a", "A", "aa"])
    }

    @Test func rawCompareUsesUTF8BytesForIDsM11() {
        #expect(Collation.rawCompare("B", "a") == -1)
        #expect(Collation.compare("B", "a") == 1)
        #expect(Collation.rawCompare("a", "aa") == -1)
        #expect(Collation.rawCompare("z", "é") == -1)
        #expect(Collation.rawCompare("x", "x") == 0)
        // Across types, Erlang term order: numbers < atoms < objects < arrays < strings.
        #expect(Collation.rawCompare(1, "a") == -1)
        #expect(Collation.rawCompare(false, nil) == -1)
        #expect(Collation.rawCompare([:], []) == -1)
    }

    @Test func compareIsAntisymmetricAndTransitiveOnRandomValues() async {
        await propertyCheck(input: QueryGen.value, QueryGen.value, QueryGen.value) { a, b, c in
            #expect(Collation.compare(a, b) == -Collation.compare(b, a))
            #expect(Collation.rawCompare(a, b) == -Collation.rawCompare(b, a))
            let ab = Collation.compare(a, b)
            let bc = Collation.compare(b, c)
            if ab <= 0, bc <= 0 { #expect(Collation.compare(a, c) <= 0) }
            if ab == 0, bc == 0 { #expect(Collation.compare(a, c) == 0) }
            if ab >= 0, bc >= 0 { #expect(Collation.compare(a, c) >= 0) }
        }
    }
}

/// Random JSON for query property tests, biased towards collisions (small alphabets, close numbers) so
/// that ties and prefixes actually occur.
enum QueryGen {
    static let value = Generator { rng in randomValue(depth: 0, using: &rng) }

    static let strings = ["", "a", "A", "aa", "b", "B", "é", "e\u{301}", "E", "0", "10", "9", "-", "_", " ", "ø", "ß", "ss", "Ω", "中"]

    static func randomValue(depth: Int, using rng: inout some RandomNumberGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth >= 2 ? 6 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(.integer(Int64.random(in: -3...3, using: &rng)))
        case 3: return .number(.double(Double(Int.random(in: -6...6, using: &rng)) / 2))
        case 4, 5:
            var text = ""
            for _ in 0..<Int.random(in: 0...2, using: &rng) { text += strings.randomElement(using: &rng) ?? "" }
            return .string(text)
        case 6:
            return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(depth: depth + 1, using: &rng) })
        default:
            let keys = ["a", "b", "A"]
            let members = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                (keys.randomElement(using: &rng) ?? "a", randomValue(depth: depth + 1, using: &rng))
            }
            return .object(JSONObject(members))
        }
    }
}
