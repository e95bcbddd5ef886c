import CloudantCore
import Foundation
import Testing

/// Parses `text` through the `String` entry point.
func parseJSON(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: text)
}

/// A piece of malformed JSON and the byte offset the parser must report.
struct MalformedJSON: Sendable, CustomTestStringConvertible {
    var label: String
    var bytes: [UInt8]
    var position: Int

    init(_ label: String, _ text: String, at position: Int) {
        self.label = label
        self.bytes = Array(text.utf8)
        self.position = position
    }

    init(_ label: String, bytes: [UInt8], at position: Int) {
        self.label = label
        self.bytes = bytes
        self.position = position
    }

    var testDescription: String { label }
}

@Suite("JSON parser")
struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try parseJSON(#"{"n":null,"t":true,"f":false,"i":-12,"d":2.5,"s":"x","a":[1,[]],"o":{}}"#)
        let expected: JSONValue = [
            "n": nil, "t": true, "f": false, "i": -12, "d": 2.5, "s": "x", "a": [1, []], "o": .object(JSONObject()),
        ]
        #expect(value == expected)
    }

    @Test func scalarsAreValidDocumentsOnTheirOwn() throws {
        #expect(try parseJSON("null") == .null)
        #expect(try parseJSON("true") == true)
        #expect(try parseJSON(#""text""#) == "text")
        #expect(try parseJSON("42") == 42)
    }

    @Test func whitespaceAroundTokensIsIgnored() throws {
        let value = try parseJSON(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ] , \"b\" : { } }\r\n ")
        #expect(value == ["a": [1, 2], "b": .object(JSONObject())])
    }

    @Test func memberOrderIsPreserved() throws {
        let value = try parseJSON(#"{"zebra":1,"apple":2,"mango":3,"_id":"x"}"#)
        #expect(value.objectValue?.keys == ["zebra", "apple", "mango", "_id"])
    }

    @Test func repeatedMemberNameKeepsItsLastValueInItsFirstPlace() throws {
        let value = try parseJSON(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
    }

    @Test func repeatedMemberNamesInLargeObjectsAreMergedToo() throws {
        // Past a dozen members the parser switches from scanning to a dictionary; both must agree.
        let members = (0..<40).map { "\"k\($0)\":\($0)" } + ["\"k3\":\"late\"", "\"k39\":\"last\"", "\"k0\":null"]
        let value = try parseJSON("{" + members.joined(separator: ",") + "}")
        let object = try #require(value.objectValue)
        #expect(object.count == 40)
        #expect(object.keys == (0..<40).map { "k\($0)" })
        #expect(object["k3"] == "late")
        #expect(object["k39"] == "last")
        #expect(object["k0"] == .null)
        #expect(object["k20"] == 20)
    }

    @Test func memberNamesThatDifferOnlyInUnicodeNormalisationAreTwoMembers() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are equal as Swift Strings but are different
        // names to CouchDB and every JSON parser; merging them silently dropped a member of the document.
        let composed = "\u{E9}", decomposed = "e\u{301}"
        for filler in [0, 20] {  // both duplicate checks: the short scan and, past a dozen members, the dictionary
            let members = (0..<filler).map { "\"k\($0)\":0" } + ["\"\(composed)\":1", "\"\(decomposed)\":2"]
            let object = try #require(parseJSON("{" + members.joined(separator: ",") + "}").objectValue)
            #expect(object.count == filler + 2)
            #expect(object[composed] == 1)
            #expect(object[decomposed] == 2)
            let written = JSONValue.object(object).jsonString()
            #expect(written.utf8.elementsEqual(("{" + members.joined(separator: ",") + "}").utf8))
            #expect(try parseJSON(written) == .object(object))
        }
    }

    @Test("Repeated names keep their first position and last value, whether names come in order or not")
    func repeatedNamesAgreeWithAReferenceModelInAndOutOfOrder() throws {
        var generator = SystemRandomNumberGenerator()
        let names = (0..<30).map { String(format: "n%02d", $0) }
        for round in 0..<600 {
            let count = Int.random(in: 0...40, using: &generator)
            // A third of the objects ascend and then repeat (the parser's fast path for sorted names, then its
            // fallback); a third ascend through some names with gaps and then add a few, new or repeated (a
            // sorted body with members appended: bisection, then a scan); a third are random throughout.
            var keys: [String]
            if round % 3 == 0 {
                let ascendingPart = names.prefix(Int.random(in: 0...min(count, names.count), using: &generator))
                keys = Array(ascendingPart) + (0..<max(0, count - ascendingPart.count)).map { _ in names.randomElement(using: &generator)! }
            } else if round % 3 == 1 {
                let ascendingPart = names.filter { _ in Bool.random(using: &generator) }
                keys = ascendingPart + (0..<Int.random(in: 0...16, using: &generator)).map { _ in names.randomElement(using: &generator)! }
            } else {
                keys = (0..<count).map { _ in names.randomElement(using: &generator)! }
            }
            var expected: [(String, Int)] = []
            for (value, key) in keys.enumerated() {
                if let position = expected.firstIndex(where: { $0.0 == key }) { expected[position].1 = value } else { expected.append((key, value)) }
            }
            let text = "{" + keys.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",") + "}"
            let object = try #require(parseJSON(text).objectValue)
            #expect(object.keys == expected.map(\.0), "\(text)")
            #expect(expected.allSatisfy { object[$0.0] == .number(JSONNumber($0.1)) }, "\(text)")
        }
    }

    @Test func objectsWhoseNamesDifferOnlyInNormalisationAreNotEqual() throws {
        let composed = try parseJSON("{\"\u{E9}\":1}")
        let decomposed = try parseJSON("{\"e\u{301}\":1}")
        #expect(composed != decomposed)
        var object = try #require(composed.objectValue)
        object["e\u{301}"] = 2
        #expect(object.count == 2)
        #expect(object.removeValue(forKey: "\u{E9}") == 1)
        #expect(object.keys.map { Array($0.utf8) } == [Array("e\u{301}".utf8)])
    }

    // MARK: Numbers

    @Test func int64ExtremesStayExactIntegers() throws {
        #expect(try parseJSON("9223372036854775807") == .number(.integer(.max)))
        #expect(try parseJSON("-9223372036854775808") == .number(.integer(.min)))
        #expect(try parseJSON("0") == .number(.integer(0)))
    }

    @Test func integersBeyondDoublePrecisionStayExact() throws {
        let value = try parseJSON("[9007199254740993,-9007199254740993]")
        guard case .array(let numbers) = value,
            case .number(.integer(let positive)) = numbers[0], case .number(.integer(let negative)) = numbers[1]
        else {
            Issue.record("Expected two integers, got \(value)")
            return
        }
        #expect(positive == 9_007_199_254_740_993)
        #expect(negative == -9_007_199_254_740_993)
    }

    /// CouchDB keeps integers of any size (Erlang's integers); so do we, digit for digit.
    @Test func integersBeyondInt64KeepEveryDigitAndAreWrittenBackAsSent() throws {
        for text in ["9223372036854775808", "-9223372036854775809", "12345678901234567890", "123456789012345678901234567890"] {
            let value = try parseJSON(text)
            #expect(value == .number(.bigInteger(text)))
            #expect(String(decoding: value.jsonBytes(), as: UTF8.self) == text)
        }
        #expect(try parseJSON("9223372036854775807") == .number(.integer(.max)))
        #expect(try parseJSON("-9223372036854775808") == .number(.integer(.min)))
        #expect(try parseJSON("1e19") == .number(.double(1e19)))
    }

    @Test func bigIntegersCompareByTheirExactValue() throws {
        let big = JSONNumber.bigInteger("9223372036854775809")
        #expect(Collation.compareNumbers(big, .integer(.max)) == 1)
        #expect(Collation.compareNumbers(.bigInteger("-9223372036854775809"), .integer(.min)) == -1)
        #expect(Collation.compareNumbers(big, .bigInteger("9223372036854775810")) == -1)
        #expect(Collation.compareNumbers(.bigInteger("-100000000000000000000"), .bigInteger("-99999999999999999999")) == -1)
        // 2^63 is a double exactly; 2^63 + 1 is above it though both round to the same double.
        #expect(Collation.compareNumbers(.bigInteger("9223372036854775808"), .double(0x1p63)) == 0)
        #expect(Collation.compareNumbers(big, .double(0x1p63)) == 1)
        #expect(Collation.compareNumbers(.double(0x1p64), big) == 1)
        #expect(JSONNumber.bigInteger("9223372036854775808") == .double(0x1p63))
    }

    @Test func numbersWithAFractionOrExponentAreDoubles() throws {
        guard case .number(.double(let one)) = try parseJSON("1.0"),
            case .number(.double(let hundred)) = try parseJSON("1E2"),
            case .number(.double(let tenth)) = try parseJSON("1e-1")
        else {
            Issue.record("Expected doubles")
            return
        }
        #expect(one == 1)
        #expect(hundred == 100)
        #expect(tenth == 0.1)
    }

    @Test(arguments: [
        "0.1", "-0.5", "3.141592653589793", "2.718281828459045e-10", "1.7976931348623157e308", "5e-324",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "1e23", "8.41e21", "9007199254740993.0",
        "3.14159265358979323846264338327950288419716939937510", "0.000000000000000000000000000001",
        "1e-400", "123456.789e3", "1E+2", "4.9406564584124654e-324", "0.30000000000000004",
    ])
    func doublesAreCorrectlyRounded(text: String) throws {
        let expected = try #require(Double(text))
        guard case .number(.double(let parsed)) = try parseJSON(text) else {
            Issue.record("Expected a double for \(text)")
            return
        }
        #expect(parsed.bitPattern == expected.bitPattern)
    }

    @Test func negativeZeroKeepsItsSign() throws {
        guard case .number(.double(let zero)) = try parseJSON("-0") else {
            Issue.record("Expected -0 to parse as a double")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
    }

    @Test(arguments: ["1e400", "-1e400", "1e999999999999"])
    func numbersBeyondDoubleRangeAreRejected(text: String) {
        #expect {
            try parseJSON(text)
        } throws: { error in
            (error as? CloudantError)?.code == .invalidInput && (error as? CloudantError)?.context.position == 0
        }
    }

    // MARK: Strings

    @Test func shortEscapesDecode() throws {
        #expect(try parseJSON(#""\"\\\/\b\f\n\r\t""#) == "\"\\/\u{8}\u{c}\n\r\t")
    }

    @Test func unicodeEscapesDecodeIncludingSurrogatePairs() throws {
        #expect(try parseJSON(#""\u00e9\u00E9\u4e2d\u0000""#) == "éé中\u{0}")
        #expect(try parseJSON(#""smile \ud83d\ude00!""#) == "smile 😀!")
        #expect(try parseJSON(#""\uD834\uDD1E""#) == "𝄞")
    }

    @Test func rawUTF8IsKeptAsIs() throws {
        let text = #"{"name":"Zoë 中文 😀 \u00e9","note":"a/b"}"#
        let value = try parseJSON(text)
        #expect(value["name"] == "Zoë 中文 😀 é")
        #expect(value["note"] == "a/b")
        #expect(try JSONValue(parsing: Array(text.utf8)) == value)
    }

    @Test func decomposedAndPrecomposedTextKeepTheirBytes() throws {
        // Swift's `==` treats these as equal; the bytes must still survive unchanged.
        let decomposed = try parseJSON("\"e\u{301}\"")
        #expect(Array(decomposed.stringValue?.utf8 ?? "".utf8) == [0x65, 0xCC, 0x81])
    }

    // MARK: Entry points

    @Test func stringDataAndByteEntryPointsAgree() throws {
        let text = #"{"a":[1,2.5,"x"],"b":{"c":null}}"#
        let fromString = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: Data(text.utf8)) == fromString)
        #expect(try JSONValue(parsing: Array(text.utf8)) == fromString)
        #expect(try JSONValue(parsing: Array(text.utf8)[...]) == fromString)
        // A collection without contiguous storage is copied first.
        #expect(try JSONValue(parsing: Array(text.utf8.reversed()).reversed()) == fromString)
    }

    // MARK: Malformed input

    static let malformed: [MalformedJSON] = [
        .init("empty input", "", at: 0),
        .init("only whitespace", " \n\t", at: 3),
        .init("trailing comma in an array", "[1,]", at: 3),
        .init("trailing comma in an object", #"{"a":1,}"#, at: 7),
        .init("leading zero", "01", at: 0),
        .init("negative leading zero", "[-012]", at: 1),
        .init("leading plus", "+1", at: 0),
        .init("no digit before the point", ".5", at: 0),
        .init("no digit after the point", "1.", at: 2),
        .init("no exponent digits", "1e", at: 2),
        .init("signed exponent without digits", "1e+", at: 3),
        .init("lone minus", "-", at: 1),
        .init("NaN", "NaN", at: 0),
        .init("Infinity", "[Infinity]", at: 1),
        .init("negative Infinity", "-Infinity", at: 1),
        .init("hexadecimal number", "0x1F", at: 1),
        .init("line comment", "[1] // note", at: 4),
        .init("block comment", "/* note */ 1", at: 0),
        .init("single-quoted name", "{'a':1}", at: 1),
        .init("unquoted name", "{a:1}", at: 1),
        .init("missing colon", #"{"a" 1}"#, at: 5),
        .init("missing comma between members", #"{"a":1 "b":2}"#, at: 7),
        .init("missing comma between elements", "[1 2]", at: 3),
        .init("comma without a value", "[,1]", at: 1),
        .init("empty member", "{,}", at: 1),
        .init("raw tab in a string", "\"a\tb\"", at: 2),
        .init("raw newline in a string", "\"a\nb\"", at: 2),
        .init("unknown escape", #""\x""#, at: 1),
        .init("short unicode escape", #""\u12""#, at: 3),
        .init("non-hex unicode escape", #""\u12G4""#, at: 5),
        .init("lone high surrogate", #""\ud800""#, at: 1),
        .init("lone low surrogate", #""\udc00""#, at: 1),
        .init("high surrogate before a non-surrogate", #""\ud83d\u0041""#, at: 1),
        .init("unterminated string", #""abc"#, at: 4),
        .init("unterminated array", "[1,", at: 3),
        .init("unterminated object", #"{"a":"#, at: 5),
        .init("misspelled literal", "tru", at: 3),
        .init("capitalised literal", "True", at: 0),
        .init("misspelled null", "[nul]", at: 4),
        .init("two values", "1 2", at: 2),
        .init("garbage after the value", "{} x", at: 3),
        .init("literal followed by letters", "nulll", at: 4),
        .init("NUL after the value", "[1]\u{0}", at: 3),
        .init("non-breaking space as whitespace", "\u{A0}1", at: 0),
        .init("byte order mark", bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], at: 0),
        .init("invalid continuation byte", bytes: [0x22, 0xC3, 0x28, 0x22], at: 1),
        .init("lone continuation byte", bytes: [0x22, 0x61, 0x80, 0x22], at: 2),
        .init("overlong encoding", bytes: [0x22, 0xC0, 0xAF, 0x22], at: 1),
        .init("encoded surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], at: 1),
        .init("code point above U+10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], at: 1),
        .init("truncated sequence", bytes: [0x22, 0xE2, 0x82], at: 1),
        .init("invalid byte outside a string", bytes: [0x5B, 0xFF, 0x5D], at: 1),
    ]

    @Test(arguments: malformed)
    func malformedInputIsRejectedWithItsPosition(_ input: MalformedJSON) {
        #expect {
            try JSONValue(parsing: input.bytes)
        } throws: { error in
            guard let error = error as? CloudantError else { return false }
            #expect(error.code == .invalidInput)
            #expect(error.context.position == input.position, "\(error)")
            return true
        }
    }

    @Test func errorMessagesNeverQuoteTheDocument() throws {
        let secret = #"{"patient":"Alice Example","ssn":"123-45-6789",}"#
        let error = try #require(throws: CloudantError.self) { try JSONValue(parsing: secret) }
        #expect(error.context.position == 47)
        for fragment in ["Alice", "patient", "123-45", "ssn"] {
            #expect(!error.description.contains(fragment))
        }
    }

    // MARK: Nesting

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = 512
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try parseJSON(text)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            value = elements.first ?? .null
        }
        #expect(levels == depth)
    }

    @Test func depthBombIsRejectedInsteadOfOverflowingTheStack() throws {
        let bomb = String(repeating: #"{"a":["#, count: 100_000)
        let error = try #require(throws: CloudantError.self) { try JSONValue(parsing: bomb) }
        #expect(error.code == .invalidInput)
        // `{"a":[` is six bytes and two levels; the 513th level is the `{` of the 257th repetition.
        #expect(error.context.position == 256 * 6)

        let arrays = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let arrayError = try #require(throws: CloudantError.self) { try JSONValue(parsing: arrays) }
        #expect(arrayError.context.position == 512)
    }

    @Test func anEnvelopeAroundDocumentsMayNestDeeperAndEachDocumentsDepthIsMeasured() throws {
        // A document at the limit, three levels inside an answer: refused by the plain parse, read with room for
        // the envelope, and measured on its own.
        let document = String(repeating: #"{"a":"#, count: 512) + "1" + String(repeating: "}", count: 512)
        let envelope = #"{"results":[{"doc":"# + document + "}]}"
        #expect(throws: CloudantError.self) { try JSONValue(parsing: envelope) }
        let parsed = try JSONValue(parsing: Data(envelope.utf8), maximumDepth: JSONValue.maximumNestingDepth + 3)
        #expect(parsed.nestingDepth == 515)
        #expect(parsed["results"]?.arrayValue?.first?["doc"]?.nestingDepth == JSONValue.maximumNestingDepth)
        #expect(JSONValue.number(JSONNumber(1)).nestingDepth == 0 && JSONValue.array([]).nestingDepth == 1)
    }
}
