import CloudantCore
import Foundation
import Testing

/// How a stored body becomes a document: `_id` and `_rev` put in front (`prepending` makes a new object from
/// a parsed one, `JSONValue(parsing:leadingMembers:)` builds it so as it parses), replacing members of the same
/// names, names compared by their bytes.
@Suite("JSON object: members put in front")
struct JSONObjectLeadingMembersTests {
    static let leading: [(key: String, value: JSONValue)] = [("_id", "walk"), ("_rev", "1-abc")]

    /// The object both ways: prepended to the parsed body, and parsed with the members in front.
    private func bothWays(_ json: String, leading: [(key: String, value: JSONValue)] = leading) throws -> [JSONObject] {
        let body = try #require(try JSONValue(parsing: json).objectValue)
        let bytes = Array(json.utf8)
        let parsed = try bytes.withUnsafeBufferPointer { try JSONValue(parsing: $0, leadingMembers: leading) }
        return [body.prepending(leading), try #require(parsed.objectValue)]
    }

    @Test func leadingMembersGoFirstAndTheBodyKeepsItsOrder() throws {
        for object in try bothWays(#"{"z":1,"a":{"_id":"nested"},"_x":3}"#) {
            #expect(object.keys == ["_id", "_rev", "z", "a", "_x"])
            #expect(object["_id"] == "walk")
            // Only the outermost object gets them.
            #expect(object["a"] == .object(["_id": "nested"]))
        }
    }

    @Test func aMemberWithALeadingNameIsReplacedNotRepeated() throws {
        for object in try bothWays(#"{"a":1,"_rev":"9-old","b":2,"_id":"other"}"#) {
            #expect(object.keys == ["_id", "_rev", "a", "b"])
            #expect(object["_rev"] == "1-abc")
            #expect(object["_id"] == "walk")
        }
    }

    @Test func namesThatOnlyLookAlikeAreKept() throws {
        // The same first byte, another name; and a canonically equivalent spelling, which is another name.
        let leading: [(key: String, value: JSONValue)] = [("\u{E9}", 1), ("_i", 2)]
        for object in try bothWays("{\"e\u{301}\":3,\"_id\":4}", leading: leading) {
            #expect(object.keys.map { Array($0.utf8) } == ["\u{E9}", "_i", "e\u{301}", "_id"].map { Array($0.utf8) })
        }
    }

    @Test func anEmptyBodyGetsJustTheLeadingMembersAndAnotherValueNone() throws {
        for object in try bothWays("{}") { #expect(object.keys == ["_id", "_rev"]) }
        let array = try Array("[{}]".utf8).withUnsafeBufferPointer { try JSONValue(parsing: $0, leadingMembers: Self.leading) }
        #expect(array == .array([.object(JSONObject())]))
    }

    @Test func malformedTextFailsAsWithoutLeadingMembers() throws {
        let error = #expect(throws: CloudantError.self) {
            try Array(#"{"a":1,}"#.utf8).withUnsafeBufferPointer { try JSONValue(parsing: $0, leadingMembers: Self.leading) }
        }
        #expect(error?.code == .invalidInput)
    }

    @Test func prependingLeavesTheOriginalAsItWas() throws {
        let body = try #require(try JSONValue(parsing: #"{"a":1}"#).objectValue)
        let shared = body.prepending(Self.leading)
        #expect(body.keys == ["a"])
        #expect(shared.keys == ["_id", "_rev", "a"])
    }
}
