import CloudantCore
import Foundation
import Testing

/// How a stored body becomes a document: `_id` and `_rev` put in front (`prepending` makes a new object,
/// `prepend` does it in place), replacing members of the same names, names compared by their bytes.
@Suite("JSON object: members put in front")
struct JSONObjectLeadingMembersTests {
    static let leading: [(key: String, value: JSONValue)] = [("_id", "walk"), ("_rev", "1-abc")]

    @Test func leadingMembersGoFirstAndTheBodyKeepsItsOrder() throws {
        var body = try #require(try JSONValue(parsing: #"{"z":1,"a":2,"_x":3}"#).objectValue)
        let copied = body.prepending(Self.leading)
        body.prepend(Self.leading)
        for object in [body, copied] {
            #expect(object.keys == ["_id", "_rev", "z", "a", "_x"])
            #expect(object["_id"] == "walk")
        }
    }

    @Test func aMemberWithALeadingNameIsReplacedNotRepeated() throws {
        var body = try #require(try JSONValue(parsing: #"{"a":1,"_rev":"9-old","b":2,"_id":"other"}"#).objectValue)
        let copied = body.prepending(Self.leading)
        body.prepend(Self.leading)
        for object in [body, copied] {
            #expect(object.keys == ["_id", "_rev", "a", "b"])
            #expect(object["_rev"] == "1-abc")
            #expect(object["_id"] == "walk")
        }
    }

    @Test func namesThatOnlyLookAlikeAreKept() throws {
        // The same first byte, another name; and a canonically equivalent spelling, which is another name.
        let leading: [(key: String, value: JSONValue)] = [("\u{E9}", 1), ("_i", 2)]
        var body = try #require(try JSONValue(parsing: "{\"e\u{301}\":3,\"_id\":4}").objectValue)
        let copied = body.prepending(leading)
        body.prepend(leading)
        for object in [body, copied] {
            #expect(object.keys.map { Array($0.utf8) } == ["\u{E9}", "_i", "e\u{301}", "_id"].map { Array($0.utf8) })
        }
    }

    @Test func prependingLeavesTheOriginalAsItWas() throws {
        let body = try #require(try JSONValue(parsing: #"{"a":1}"#).objectValue)
        var shared = body
        shared.prepend(Self.leading)
        #expect(body.keys == ["a"])
        #expect(shared.keys == ["_id", "_rev", "a"])
    }
}
