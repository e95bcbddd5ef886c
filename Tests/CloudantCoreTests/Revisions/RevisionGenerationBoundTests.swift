@testable import CloudantCore
import Testing

/// A generation near `Int64.max` is refused with a typed error: editing it would overflow, abort the process and
/// poison the document.
@Suite("Revision generations are bounded")
struct RevisionGenerationBoundTests {
    static let maximum = RevisionID.maximumGeneration

    @Test func aRevisionAtTheMaximumGenerationParses() throws {
        let parsed = try RevisionID(parsing: "\(Self.maximum)-967a00dff5e02add41819138abb3284d")
        #expect(parsed.generation == Self.maximum)
    }

    @Test(arguments: ["9007199254740992", "9223372036854775807", "99999999999999999999999"])
    func aGenerationAboveTheMaximumIsRefusedWhenParsed(_ generation: String) {
        let error = expectError(.invalidInput) { _ = try RevisionID(parsing: "\(generation)-abc") }
        #expect(error?.context.field == "_rev")
        #expect(error?.message.contains("largest") == true || error?.message.contains("non-negative") == true)
    }

    @Test func revisionsStartingAboveTheMaximumAreRefused() {
        let document: JSONObject = [
            "_id": "a", "_revisions": ["start": .number(JSONNumber(Int64.max)), "ids": ["abc"]],
        ]
        let error = expectError(.invalidInput) { _ = try IncomingDocument(document) }
        #expect(error?.context.field == "_revisions")
        #expect(error?.message.contains("largest revision generation") == true)
    }

    @Test func editingARevisionAtTheMaximumGenerationIsRefusedNotOverflowed() throws {
        var tree = RevisionTree()
        let top = RevisionID(generation: Self.maximum, hash: "abc")
        try tree.merge(path: [top], deleted: false)
        let error = expectError(.invalidInput) {
            _ = try tree.parentForInteractiveWrite(named: top, deleting: false, documentID: "a")
        }
        #expect(error?.context.revision == top.description)
        expectError(.invalidInput) { try tree.addChild(RevisionID(generation: 1, hash: "x"), of: top, deleted: false) }
    }

    @Test func recreatingADeletedDocumentAtTheMaximumGenerationIsRefused() throws {
        var tree = RevisionTree()
        try tree.merge(path: [RevisionID(generation: Self.maximum, hash: "abc")], deleted: true)
        expectError(.invalidInput) { _ = try tree.parentForInteractiveWrite(named: nil, deleting: false, documentID: "a") }
    }

    @Test func aStoredGenerationAboveTheBoundStillCannotBeExtended() throws {
        // A file written before the bound existed may hold Int.max: editing it must refuse, not trap.
        var tree = RevisionTree()
        let top = RevisionID(generation: Int.max, hash: "abc")
        tree.entries[top] = RevisionTree.Entry(parent: nil, deleted: false, bodyAvailable: true)
        expectError(.invalidInput) { _ = try tree.parentForInteractiveWrite(named: top, deleting: false, documentID: "a") }
    }

    @Test func mergingAPathAboveTheMaximumIsRefused() {
        var tree = RevisionTree()
        expectError(.invalidInput) {
            try tree.merge(path: [RevisionID(generation: Self.maximum + 1, hash: "abc")], deleted: false)
        }
        #expect(tree.isEmpty)
    }
}
