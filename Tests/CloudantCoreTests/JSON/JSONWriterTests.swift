import CloudantCore
import Foundation
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    @Test func writesCompactJSONWithoutWhitespace() {
        let value: JSONValue = ["a": [1, true, nil, "x"], "b": ["c": 2.5], "d": .object(JSONObject()), "e": []]
        #expect(value.jsonString() == #"{"a":[1,true,null,"x"],"b":{"c":2.5},"d":{},"e":[]}"#)
    }

    @Test func keepsMemberOrderUnlessAskedToSort() {
        let value: JSONValue = ["zebra": 1, "apple": ["y": 1, "x": 2], "mango": 3]
        #expect(value.jsonString() == #"{"zebra":1,"apple":{"y":1,"x":2},"mango":3}"#)
        #expect(value.jsonString(sortedKeys: true) == #"{"apple":{"x":2,"y":1},"mango":3,"zebra":1}"#)
    }

    @Test func sortedKeysCompareUTF8BytesAtEveryLevel() {
        // Byte order: "B" (0x42) < "a" < "aa" < "b" < "é" (0xC3 0xA9) < "😀" (0xF0 …).
        let value: JSONValue = ["😀": 1, "é": 2, "b": 3, "aa": 4, "a": [["z": 1, "B": 2]], "B": 5]
        #expect(value.jsonString(sortedKeys: true) == #"{"B":5,"a":[{"B":2,"z":1}],"aa":4,"b":3,"é":2,"😀":1}"#)
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let value = JSONValue.string("\"\\\u{8}\u{c}\n\r\t\u{0}\u{1}\u{1f}\u{7f}")
        #expect(value.jsonString() == #""\"\\\b\f\n\r\t\u0000\u0001\u001f"# + "\u{7f}\"")
    }

    @Test func leavesSlashesAndNonASCIIUnescaped() {
        let value = JSONValue.string("a/b Zoë 中文 😀 e\u{301}")
        #expect(value.jsonBytes() == Array("\"a/b Zoë 中文 😀 e\u{301}\"".utf8))
    }

    @Test func escapesInMemberNamesToo() {
        let value: JSONValue = ["line\nbreak": 1, "quote\"d": 2]
        #expect(value.jsonString() == #"{"line\nbreak":1,"quote\"d":2}"#)
    }

    @Test func integersAreWrittenExactly() {
        let value: JSONValue = [.number(.integer(.min)), .number(.integer(.max)), 9_007_199_254_740_993, 0, -1, 10, -10]
        #expect(value.jsonString() == "[-9223372036854775808,9223372036854775807,9007199254740993,0,-1,10,-10]")
    }

    @Test func doublesUseTheShortestTextThatReadsBackTheSame() {
        let doubles: [Double] = [0.1, 1e-7, 5e20, 1.0, -0.0, 0.1 + 0.2, 1.7976931348623157e308, .leastNonzeroMagnitude, -2.5, 1e16]
        let value = JSONValue.array(doubles.map { .number(.double($0)) })
        #expect(
            value.jsonString()
                == "[0.1,1e-07,5e+20,1.0,-0.0,0.30000000000000004,1.7976931348623157e+308,5e-324,-2.5,1e+16]")
    }

    @Test func parsedDoublesKeepTheirDoubleSpelling() throws {
        #expect(try parseJSON("[1.0,2e0,-0,1.5]").jsonString() == "[1.0,2.0,-0.0,1.5]")
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        let value: JSONValue = [.number(.double(.nan)), .number(.double(.infinity)), .number(.double(-.infinity))]
        #expect(value.jsonString() == "[null,null,null]")
        #expect(value.canonicalJSONBytes() == Array("[null,null,null]".utf8))
    }

    @Test func stringDataAndBytesHoldTheSameText() {
        let value: JSONValue = ["a": "é", "b": [1, 2]]
        #expect(Array(value.jsonString().utf8) == value.jsonBytes())
        #expect(Array(value.jsonData()) == value.jsonBytes())
        #expect(Array(value.jsonData(sortedKeys: true)) == value.jsonBytes(sortedKeys: true))
    }
}

@Suite("Canonical JSON")
struct CanonicalJSONTests {
    @Test func canonicalFormSortsKeysAndHasNoWhitespace() {
        let value: JSONValue = ["b": ["d": 1, "c": 2], "a": "x"]
        #expect(value.canonicalJSONBytes() == Array(#"{"a":"x","b":{"c":2,"d":1}}"#.utf8))
    }

    @Test func canonicalFormDoesNotDependOnMemberOrder() throws {
        let one = try parseJSON(#"{"a":1,"b":{"x":[1,2],"y":null},"c":"é"}"#)
        let other = try parseJSON(#"{"c":"é","b":{"y":null,"x":[1,2]},"a":1}"#)
        #expect(one.canonicalJSONBytes() == other.canonicalJSONBytes())
    }

    @Test func numbersThatCompareEqualHaveOneCanonicalForm() throws {
        #expect(try parseJSON("[1.0,1e2,-0,0.0,-5.0]").canonicalJSONBytes() == Array("[1,100,0,0,-5]".utf8))
        #expect(JSONValue.number(.double(1)).canonicalJSONBytes() == JSONValue.number(.integer(1)).canonicalJSONBytes())
    }

    @Test func canonicalFormOfAReferenceDocumentNeverChanges() throws {
        // Frozen: revision hashes are minted from these bytes. If this fails, the format changed; do not update
        // the expectation, restore the format.
        let document = try parseJSON(
            #"{"z":[1,-2.5,0.1,1e-7,5e20,1.5e300,9007199254740993,1.0],"a":{"é":"\u00e9\n\"\\/","A":true},"_id":"x","m":null}"#)
        let canonical = #"{"_id":"x","a":{"A":true,"é":"é\n\"\\/"},"m":null,"#
            + #""z":[1,-2.5,0.1,1e-07,5e+20,1.5e+300,9007199254740993,1]}"#
        #expect(String(decoding: document.canonicalJSONBytes(), as: UTF8.self) == canonical)
    }
}
