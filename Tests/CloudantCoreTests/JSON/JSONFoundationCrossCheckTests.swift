import CloudantCore
import Foundation
import Testing

/// Checks our reader and writer against Foundation's `JSONSerialization`, an independent implementation.
@Suite("JSON cross-check with Foundation")
struct JSONFoundationCrossCheckTests {
    static let documents: [JSONValue] = [
        ["_id": "task-1", "title": "Walk the dog", "minutes": 30, "done": false, "tags": ["am", "outdoor"]],
        ["text": "quotes \" backslash \\ slash / newline \n tab \t bell \u{7} nul \u{0} é 中文 😀 e\u{301}"],
        ["numbers": [0, -1, 42, 9_007_199_254_740_991, -9_007_199_254_740_991, 0.1, -2.5, 1e-7, 6.02214076e23, 1.0]],
        ["nested": ["deeper": ["deepest": [[], [.object(JSONObject())], [nil, true]]]]],
        [1, "two", 3.5, nil, false],
        ["": "empty name", "unicode name é": "value", "line\nname": 1],
    ]

    @Test(arguments: documents)
    func foundationReadsOurOutputAsTheSameValue(document: JSONValue) throws {
        for bytes in [document.jsonBytes(), document.jsonBytes(sortedKeys: true), document.canonicalJSONBytes()] {
            let foundation = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            // Back through Foundation's writer and our reader: any value Foundation read differently shows up.
            let rewritten = try JSONSerialization.data(withJSONObject: foundation, options: [.fragmentsAllowed])
            #expect(try JSONValue(parsing: rewritten) == document)
            #expect(Self.matches(foundation, document))
        }
    }

    @Test(arguments: documents)
    func weReadFoundationsOutputAsTheSameValue(document: JSONValue) throws {
        let foundation = try JSONSerialization.jsonObject(with: document.jsonData(), options: [.fragmentsAllowed])
        for options: JSONSerialization.WritingOptions in [[.fragmentsAllowed], [.fragmentsAllowed, .prettyPrinted]] {
            let data = try JSONSerialization.data(withJSONObject: foundation, options: options)
            #expect(try JSONValue(parsing: data) == document)
        }
    }

    /// Compares Foundation's `Any` tree with ours directly, without going through either writer.
    private static func matches(_ foundation: Any, _ value: JSONValue) -> Bool {
        switch value {
        case .null: return foundation is NSNull
        case .bool(let flag): return (foundation as? Bool) == flag
        case .number(let number): return (foundation as? NSNumber)?.doubleValue == number.doubleValue
        case .string(let string): return (foundation as? String).map { Array($0.utf8) == Array(string.utf8) } ?? false
        case .array(let elements):
            guard let array = foundation as? [Any], array.count == elements.count else { return false }
            return zip(array, elements).allSatisfy { matches($0, $1) }
        case .object(let object):
            guard let dictionary = foundation as? [String: Any], dictionary.count == object.count else { return false }
            return object.members.allSatisfy { member in dictionary[member.key].map { matches($0, member.value) } ?? false }
        }
    }
}
