import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
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
        // Pending updates are sequences (`couch_index`): one document written three times is three.
        var rev = try await temp.store.document(id: "a").rev
        for value in 10..<13 { rev = try await temp.store.put(["_id": "a", "_rev": .string(try #require(rev)), "v": .number(JSONNumber(value))]).rev }
        #expect(try await temp.store.viewIndexInfo(designDocument: "m").pendingChanges == 3)
    }

    /// The view connection's commits and a checkpoint must never overlap (SQLite's WAL-reset bug, see
    /// `LogCheckpointer`): while an index update runs, the exclusion every checkpoint takes is held.
    @Test func anIndexUpdateHoldsOffEveryCheckpointWhileItRuns() async throws {
        let temp = try viewStore()
        let exclusion = temp.store.checkpointer.writeExclusion
        let freeWhileMapping = Mutex<[Bool]>([])
        let view = SwiftView(name: "probe", version: 1) { document, emit in
            let free = Self.isFree(exclusion)
            freeWhileMapping.withLock { $0.append(free) }
            emit(.string(document.id), .null)
        }
        _ = try await temp.store.write([["_id": "a", "v": 1], ["_id": "b", "v": 2]])
        #expect(try await temp.store.queryView(view, query: ViewQuery()).rows.count == 2)
        _ = try await temp.store.write([["_id": "c", "v": 3]])
        #expect(try await temp.store.queryView(view, query: ViewQuery()).rows.count == 3)
        #expect(freeWhileMapping.withLock { $0 } == [false, false, false], "mapped on the first build and the update")
        // Once the update is over, checkpoints run again.
        #expect(Self.isFree(exclusion))
    }

    /// Whether `lock` can be taken now (taken and given back on the calling thread).
    private static func isFree(_ lock: NSLock) -> Bool {
        guard lock.try() else { return false }
        lock.unlock()
        return true
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

    /// A map function sees the document as CouchDB's `couch_index_updater` loads it: `_id` (escaped as JSON
    /// escapes it), the winning `_rev`, the body, `_conflicts`, `_deleted_conflicts` and attachment stubs, the
    /// same members a read with `conflicts` and `deleted_conflicts` returns; a first build and an update
    /// after an edit hand the map the same form.
    @Test func aMapFunctionSeesTheDocumentAsAReadWithItsConflictsReturnsIt() async throws {
        let temp = try viewStore()
        let id = #"odd "id" \ é"#
        let view = SwiftView(name: "whole", version: 1) { document, emit in emit(.string(document.id), .object(document.object)) }
        // Two live leaves and a branch ending in a deletion, then an attachment on the winner.
        _ = try await temp.store.bulkDocs(
            [
                ["_id": .string(id), "_rev": "1-aaaa", "v": 1],
                ["_id": .string(id), "_rev": "1-bbbb", "v": 2],
                ["_id": .string(id), "_rev": "1-dddd", "v": 3, "name": "é \"quoted\" \u{1}"],
                ["_id": .string(id), "_rev": "2-cccc", "_deleted": true, "_revisions": ["start": 2, "ids": ["cccc", "aaaa"]]],
            ], newEdits: false)
        let written = try await temp.store.putAttachment(
            "notes.txt", documentID: id, rev: "1-dddd", contentType: "text/plain", content: [Array("pulse 61".utf8)].async)
        func expectTheReadForm() async throws {
            let read = try await temp.store.document(id: id, options: ReadOptions(conflicts: true, deletedConflicts: true))
            let rows = try await temp.store.queryView(view, query: ViewQuery()).rows
            #expect(rows.count == 1 && rows.first?.id == id)
            // Compared as canonical text: member order aside, the same JSON.
            let mapped = rows.first.map { String(decoding: $0.value.canonicalJSONBytes(), as: UTF8.self) }
            #expect(mapped == String(decoding: JSONValue.object(read).canonicalJSONBytes(), as: UTF8.self))
            #expect(read["_conflicts"] == ["1-bbbb"] && read["_deleted_conflicts"] == ["2-cccc"])
            #expect(read["_attachments"]?["notes.txt"]?["stub"] == true)
        }
        try await expectTheReadForm()
        var edited = try await temp.store.document(id: id)
        #expect(edited["_rev"]?.stringValue == written.rev)
        edited["v"] = 4
        try await temp.store.put(edited)
        try await expectTheReadForm()
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
