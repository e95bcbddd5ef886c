import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Replicated writes (new_edits=false) and conflicts")
struct ReplicatedWriteTests {
    /// Writes the history `start-ids…` of document `id` as a replicator would.
    func replicate(
        _ store: DocumentStore, id: String, start: Int, ids: [Character], deleted: Bool = false, body: JSONObject = [:]
    ) async throws {
        var doc: JSONObject = [
            "_id": .string(id), "_rev": .string(rev(start, ids[0])),
            "_revisions": ["start": .number(JSONNumber(start)), "ids": .array(ids.map { .string(String(repeating: $0, count: 32)) })],
        ]
        if deleted { doc["_deleted"] = true }
        for (key, value) in body.members { doc[key] = value }
        let failures = try await store.bulkDocs([.object(doc)], newEdits: false)
        #expect(failures.isEmpty)
    }

    @Test func branchesBecomeConflictsAndTheWinnerIsTheHigherHashOnATie() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 2, ids: ["b", "a"], body: ["side": "b"])
        try await replicate(temp.store, id: "d", start: 2, ids: ["c", "a"], body: ["side": "c"])
        let doc = try await temp.store.document(id: "d", options: ReadOptions(conflicts: true))
        #expect(doc.rev == rev(2, "c"))
        #expect(doc["side"] == "c")
        #expect(doc["_conflicts"] == [.string(rev(2, "b"))])
        let losing = try await temp.store.document(id: "d", options: ReadOptions(rev: rev(2, "b")))
        #expect(losing["side"] == "b")
    }

    @Test func aLiveLeafBeatsADeeperDeletedBranch() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 4, ids: ["f", "e", "d", "a"], deleted: true)
        try await replicate(temp.store, id: "d", start: 2, ids: ["b", "a"], body: ["alive": true])
        let doc = try await temp.store.document(id: "d", options: ReadOptions(conflicts: true, deletedConflicts: true))
        #expect(doc.rev == rev(2, "b"))
        #expect(doc["_conflicts"] == nil)
        #expect(doc["_deleted_conflicts"] == [.string(rev(4, "f"))])
    }

    @Test func replicatingTheSameHistoryTwiceIsANoOp() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 3, ids: ["c", "b", "a"])
        let seq = try await temp.store.info().updateSeq
        try await replicate(temp.store, id: "d", start: 3, ids: ["c", "b", "a"])
        try await replicate(temp.store, id: "d", start: 2, ids: ["b", "a"])
        #expect(try await temp.store.info().updateSeq == seq)
    }

    @Test func revisionsAndRevsInfoFollowTheWinnersPath() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 3, ids: ["c", "b", "a"])
        let doc = try await temp.store.document(id: "d", options: ReadOptions(revs: true, revsInfo: true))
        let hashes = ["c", "b", "a"].map { JSONValue.string(String(repeating: Character($0), count: 32)) }
        #expect(doc["_revisions"] == ["start": 3, "ids": .array(hashes)])
        // Only the leaf's body was received; its ancestors are "missing".
        #expect(doc["_revs_info"]?.arrayValue?.map { $0["status"] } == ["available", "missing", "missing"])
    }

    @Test func openRevsAllListsEveryLeafIncludingDeletedOnes() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 2, ids: ["b", "a"])
        try await replicate(temp.store, id: "d", start: 2, ids: ["c", "a"], deleted: true)
        let leaves = try await temp.store.openRevisions(id: "d", .all)
        #expect(leaves.count == 2)
        let revs = leaves.compactMap { result -> String? in
            if case .ok(let doc) = result { return doc.rev }
            return nil
        }
        #expect(Set(revs) == [rev(2, "b"), rev(2, "c")])
    }

    @Test func openRevsWithLatestFollowsARevisionToItsLeaves() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 3, ids: ["c", "b", "a"])
        let answer = try await temp.store.openRevisions(id: "d", .revisions([rev(2, "b"), rev(9, "9")]), latest: true)
        #expect(answer.count == 2)
        #expect(answer.first.flatMap { if case .ok(let doc) = $0 { doc.rev } else { nil } } == rev(3, "c"))
        #expect(answer.last == .missing(rev(9, "9")))
    }

    /// CouchDB refuses the whole `_bulk_docs` request (400) when a replicated document has no revision.
    @Test func aMissingRevAndRevisionsRejectsTheWholeBatch() async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.bulkDocs(
                [["_id": "ok", "_rev": .string(rev(1, "a"))], ["_id": "x", "v": 1]], newEdits: false)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.itemIndex == 1)
        #expect(error?.category == .invalidInput)
        await #expect(throws: CloudantError.self) { try await temp.store.document(id: "ok") }
    }

    @Test func resolvingAConflictByDeletingTheLoserLeavesOneLeaf() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 2, ids: ["b", "a"])
        try await replicate(temp.store, id: "d", start: 2, ids: ["c", "a"])
        try await temp.store.delete(id: "d", rev: rev(2, "b"))
        let doc = try await temp.store.document(id: "d", options: ReadOptions(conflicts: true))
        #expect(doc.rev == rev(2, "c"))
        #expect(doc["_conflicts"] == nil)
    }

    @Test func revsDiffReportsMissingRevisionsAndPossibleAncestors() async throws {
        let temp = try TemporaryStore()
        try await replicate(temp.store, id: "d", start: 2, ids: ["b", "a"])
        let diff = try await temp.store.revsDiff(["d": [rev(2, "b"), rev(3, "c")], "z": [rev(1, "9")]])
        #expect(diff["d"]?.missing.map(\.description) == [rev(3, "c")])
        #expect(diff["d"]?.possibleAncestors.map(\.description) == [rev(2, "b")])
        #expect(diff["z"]?.missing.map(\.description) == [rev(1, "9")])
        let none = try await temp.store.revsDiff(["d": [rev(1, "a")]])
        #expect(none.isEmpty)
    }

    @Test func historiesAreStemmedToRevsLimit() async throws {
        let temp = try TemporaryStore()
        try await temp.store.setRevsLimit(2)
        var current = try await temp.store.put(["_id": "d", "n": 0])
        for n in 1...4 { current = try await temp.store.put(["_id": "d", "_rev": .string(current.rev), "n": .number(JSONNumber(n))]) }
        let doc = try await temp.store.document(id: "d", options: ReadOptions(revs: true))
        #expect(doc["_revisions"]?["start"] == 5)
        #expect(doc["_revisions"]?["ids"]?.arrayValue?.count == 2)
    }
}
