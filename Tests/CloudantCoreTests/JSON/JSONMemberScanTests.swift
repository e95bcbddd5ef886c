import CloudantCore
import Foundation
import Testing

/// `JSONMemberScan` must find what the parser finds: for any object, each wanted member's value slice
/// parses to the member the full parse holds (the last one written when a name repeats), whether members
/// are looked up together or one alone.
@Suite("Scanning a JSON object for chosen members")
struct JSONMemberScanTests {
    static let names = ["a", "b", "é", "q\"x", "", "nested", "a\u{1}"]

    static func value(_ rng: inout some RandomNumberGenerator, depth: Int = 0) -> String {
        switch Int.random(in: 0..<(depth > 2 ? 6 : 9), using: &rng) {
        case 0: return "null"
        case 1: return Bool.random(using: &rng) ? "true" : "false"
        case 2: return String(Int.random(in: -99_999...99_999, using: &rng))
        case 3: return ["-0.5e-3", "1E+2", "0", "12.25", "-0"].randomElement(using: &rng) ?? "0"
        case 4: return [#""""#, #""plain""#, #""with \"quote\" and \\ and \/""#, #""\u00e9\ud83d\ude00""#, #""}]{[,:""#]
            .randomElement(using: &rng) ?? #""""#
        case 5: return #""tab\tnew\nline""#
        case 6: return "[" + (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(&rng, depth: depth + 1) }.joined(separator: ", ") + "]"
        default: return object(&rng, depth: depth + 1)
        }
    }

    /// Member names as written: plainly, or with escapes that decode to the same name.
    static func name(_ rng: inout some RandomNumberGenerator) -> String {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: return #""\u0061""#  // a
        case 1: return #""\u00e9""#  // é
        case 2: return #""q\"x""#
        case 3: return #""a\u0001""#
        case 4: return #""other""#
        default: return "\"" + (names.randomElement(using: &rng) ?? "a").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\u{1}", with: "\\u0001") + "\""
        }
    }

    static func object(_ rng: inout some RandomNumberGenerator, depth: Int = 0) -> String {
        let space = [" ", "", "\n\t", "\r\n "]
        let members = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
            name(&rng) + (space.randomElement(using: &rng) ?? "") + ":" + (space.randomElement(using: &rng) ?? "")
                + value(&rng, depth: depth)
        }
        let pad = space.randomElement(using: &rng) ?? ""
        return pad + "{" + pad + members.joined(separator: pad + "," + pad) + pad + "}" + pad
    }

    @Test("Each member's value is the one the parser keeps, looked up together or alone, for 3,000 generated objects")
    func findsWhatTheParserFinds() throws {
        // A failure prints the object's text, which reproduces it.
        var rng = SystemRandomNumberGenerator()
        let wanted = Self.names.map { Array($0.utf8) }
        for _ in 0..<3_000 {
            let text = Array(Self.object(&rng).utf8)
            guard case .object(let parsed) = try JSONValue(parsing: text) else { Issue.record("not an object"); continue }
            let ranges = try #require(text.withUnsafeBufferPointer { JSONMemberScan.valueRanges(of: wanted, in: $0) })
            for (name, range) in zip(Self.names, ranges) {
                let scanned = try range.map { try JSONValue(parsing: Array(text[$0])) }
                #expect(scanned == parsed[name], "member \(name) of \(String(decoding: text, as: UTF8.self))")
                // One member looked up alone is found where the lookup of several finds it.
                let alone = Array(name.utf8).withUnsafeBufferPointer { name in
                    text.withUnsafeBufferPointer { JSONMemberScan.valueRange(of: name, in: $0) }
                }
                #expect(alone == range, "member \(name) alone of \(String(decoding: text, as: UTF8.self))")
            }
        }
    }

    @Test("Text that is not a whole object gives nil, never a crash", arguments: [
        "", "   ", "[1]", "\"a\"", "12", "{", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
        "{\"a\":1}x", "{\"a\":\"open}", "{\"a\":[1,2}", "{\"a\":{\"b\":1}", "{\"a\":1 \"b\":2}", "{\"a\":\"ctl\u{1}\"}",
        "{\"a\":tru\"e\"}", "{\"a\":}", "{,}",
    ])
    func malformedTextGivesNil(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { JSONMemberScan.valueRanges(of: [Array("a".utf8)], in: $0) } == nil)
        let name = Array("a".utf8)
        #expect(name.withUnsafeBufferPointer { name in bytes.withUnsafeBufferPointer { JSONMemberScan.valueRange(of: name, in: $0) } } == nil)
        #expect(name.withUnsafeBufferPointer { name in bytes.withUnsafeBufferPointer { JSONMemberScan.member(name, in: $0) } } == nil)
    }

    @Test("A member lookup tells an absent member from text it cannot read")
    func aMemberLookupTellsAbsenceFromMalformedText() {
        let name = Array("a".utf8)
        func member(_ text: String) -> Range<Int>?? {
            let bytes = Array(text.utf8)
            return name.withUnsafeBufferPointer { name in bytes.withUnsafeBufferPointer { JSONMemberScan.member(name, in: $0) } }
        }
        #expect(member(#"{"b":1}"#) == .some(nil))
        #expect(member(#"{}"#) == .some(nil))
        #expect(member(#"{"b":1,"a":[2]}"#) == .some(11..<14))
        #expect(member(#"{"b":1,"a"}"#) == nil)
        #expect(member(#"[1]"#) == nil)
    }

    @Test("Every prefix of a valid object is refused or scanned without reading past its end")
    func truncatedObjectsAreSafe() {
        let text = Array(#"{"a": [1, {"b": "x\"}"}], "c\u00e9": "y", "a": -2.5e3, "d": null}"#.utf8)
        for end in 0..<text.count {
            let prefix = Array(text[..<end])
            #expect(prefix.withUnsafeBufferPointer { JSONMemberScan.valueRanges(of: [Array("a".utf8)], in: $0) } == nil)
        }
        let whole = text.withUnsafeBufferPointer { JSONMemberScan.valueRanges(of: [Array("a".utf8), Array("cé".utf8)], in: $0) }
        #expect(whole?.map { $0.map { String(decoding: text[$0], as: UTF8.self) } } == ["-2.5e3", "\"y\""])
    }
}
