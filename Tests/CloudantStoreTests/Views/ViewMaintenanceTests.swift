import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("View indexes kept incrementally")
struct ViewMaintenanceTests {
    let ddoc: JSONObject = [
        "_id": "_design/m", "language": "javascript",
        "views": ["by_v": ["map": "function(doc) { if (doc.v !== undefined) emit(doc.v, doc._conflicts || null); }"]],
    ]

    func rows(_ store: DocumentStore, _ query: ViewQuery = ViewQuery()) async throws -> [ViewRow] {
        try await store.queryView(designDocument: "m", view: "by_v", query: query).rows
    }

    @Test func editsAndDeletesMoveAndRemoveRows() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let revs = try await temp.store.write([["_id": "a", "v": 1], ["_id": "b", "v": 2], ["_id": "c", "v": 3]])
        #expect(try await rows(temp.store).map(\.key) == [1, 2, 3])
        try await temp.store.put(["_id": "a", "_rev": .string(try #require(revs["a"])), "v": 9])
        try await temp.store.delete(id: "b", rev: try #require(revs["b"]))
        #expect(try await rows(temp.store).map(\.key) == [3, 9])
        let info = try await temp.store.viewIndexInfo(designDocument: "m")
        #expect(info.updateSeq == 6 && info.pendingChanges == 0)
    }

    @Test func aConflictShowsTheWinnerWithItsConflicts() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        _ = try await temp.store.bulkDocs(
            [["_id": "x", "_rev": "1-aaaa", "v": 1], ["_id": "x", "_rev": "1-bbbb", "v": 2]], newEdits: false)
        let found = try await rows(temp.store)
        #expect(found.map(\.key) == [2])
        #expect(found[0].value == ["1-aaaa"])
    }

    @Test func replicatedRevisionsAreIndexed() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        #expect(try await rows(temp.store).isEmpty)
        _ = try await temp.store.bulkDocs([["_id": "r", "_rev": "3-cccc", "_revisions": ["start": 3, "ids": ["cccc", "bbbb", "aaaa"]], "v": 7]], newEdits: false)
        #expect(try await rows(temp.store).map(\.id) == ["r"])
    }

    @Test func aChangedMapFunctionIsANewIndexAndTheOldOneIsCleanedUp() async throws {
        let temp = try viewStore()
        let written = try await temp.store.put(ddoc)
        try await temp.store.write([["_id": "a", "v": 1]])
        let before = try await temp.store.viewIndexInfo(designDocument: "m").signature
        _ = try await rows(temp.store)
        var changed = ddoc
        changed["_rev"] = .string(written.rev)
        changed["views"] = ["by_v": ["map": "function(doc) { if (doc.v !== undefined) emit(doc.v * 10, null); }"]]
        try await temp.store.put(changed)
        #expect(try await temp.store.viewIndexInfo(designDocument: "m").signature != before)
        #expect(try await rows(temp.store).map(\.key) == [10])
        #expect(try await temp.store.cleanupViewIndexes() == [before])
        #expect(try await temp.store.cleanupViewIndexes().isEmpty)
    }

    @Test func changingSomethingOtherThanViewsKeepsTheIndex() async throws {
        let temp = try viewStore()
        let written = try await temp.store.put(ddoc)
        var changed = ddoc
        changed["_rev"] = .string(written.rev)
        changed["shows"] = ["s": "function() { return 'x'; }"]
        let before = try await temp.store.viewIndexInfo(designDocument: "m").signature
        try await temp.store.put(changed)
        #expect(try await temp.store.viewIndexInfo(designDocument: "m").signature == before)
    }

    @Test func updateFalseAnswersFromTheIndexAsItIsAndLazyUpdatesAfter() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        try await temp.store.write([["_id": "a", "v": 1]])
        #expect(try await rows(temp.store, .parameters(("update", "false"))).isEmpty)
        _ = try await rows(temp.store)
        try await temp.store.write([["_id": "b", "v": 2]])
        #expect(try await rows(temp.store, .parameters(("stale", "ok"))).count == 1)
        #expect(try await rows(temp.store, .parameters(("stale", "update_after"))).count == 1)
        // The update the lazy query started is done once the next one (serialised behind it) has run.
        #expect(try await rows(temp.store).count == 2)
    }

    @Test func aPurgedDocumentLeavesTheView() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let revs = try await temp.store.write([["_id": "a", "v": 1], ["_id": "b", "v": 2]])
        #expect(try await rows(temp.store).count == 2)
        try await temp.store.purge(["a": [try #require(revs["a"])]])
        #expect(try await rows(temp.store).map(\.id) == ["b"])
    }

    @Test func anIndexSurvivesReopeningAndGoesOnFromItsSequence() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        try await temp.store.write((0..<2500).map { ["_id": .string("d\($0)"), "v": .number(JSONNumber($0))] })
        #expect(try await rows(temp.store, .parameters(("limit", "1"))).count == 1)
        try temp.store.close()
        var options = StoreOptions()
        options.designFunctions = sharedEngine
        let reopened = try temp.reopen(options: options)
        #expect(try await reopened.viewIndexInfo(designDocument: "m").updateSeq == 2501)
        try await reopened.write([["_id": "late", "v": -1]])
        let first = try await reopened.queryView(designDocument: "m", view: "by_v", query: .parameters(("limit", "1")))
        #expect(first.rows.map(\.id) == ["late"] && first.totalRows == 2501)
        try reopened.close()
    }

    @Test func designDocumentsAreMappedOnlyWithIncludeDesign() async throws {
        let temp = try viewStore()
        try await temp.store.put([
            "_id": "_design/with", "options": ["include_design": true, "local_seq": true],
            "views": ["all": ["map": "function(doc) { emit(doc._id, doc._local_seq); }"]],
        ])
        try await temp.store.put(["_id": "_design/without", "views": ["all": ["map": "function(doc) { emit(doc._id, null); }"]]])
        try await temp.store.write([["_id": "plain"]])
        let with = try await temp.store.queryView(designDocument: "with", view: "all")
        #expect(with.ids == ["_design/with", "_design/without", "plain"])
        #expect(with.values == [1, 2, 3])
        #expect(try await temp.store.queryView(designDocument: "without", view: "all").ids == ["plain"])
    }
}
