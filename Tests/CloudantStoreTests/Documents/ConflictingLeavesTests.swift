import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Many conflicting revisions of one document: merged together, held to the store's bound on leaves, and
/// stopped with the task that asked for them.
@Suite("Conflicting leaves: bounded, merged at once, cancellable")
struct ConflictingLeavesTests {
    /// `count` distinct first revisions of document `id`, as a replicator sends them.
    static func leaves(_ count: Int, of id: String = "crowded", offset: Int = 0) -> [JSONValue] {
        (0..<count).map { index in
            let hash = String(format: "%032x", index + offset)
            return ["_id": .string(id), "_rev": .string("1-" + hash), "n": .number(JSONNumber(index + offset))]
        }
    }

    @Test func revisionsPastTheLeafBoundAreRefusedOneByOneAndTheRestAreKept() async throws {
        var options = StoreOptions()
        options.maxLeavesPerDocument = 100
        let temp = try TemporaryStore(options: options)
        let failures = try await temp.store.bulkDocs(Self.leaves(150) + [["_id": "other", "_rev": "1-abc"]], newEdits: false)
        #expect(failures.count == 50)
        #expect(failures.allSatisfy { result in
            if case .failure(let id, let error) = result { id == "crowded" && error.code == .tooManyLeaves } else { false }
        })
        let all = try await temp.store.openRevisions(id: "crowded", .all)
        #expect(all.count == 100)
        // The winner is the greatest of the revisions kept (the first hundred), its body the one sent with it.
        let winner = try await temp.store.document(id: "crowded")
        #expect(winner["_rev"] == .string("1-" + String(format: "%032x", 99)))
        #expect(winner["n"] == 99)
        #expect(try await temp.store.document(id: "other")["_rev"] == "1-abc")
        // One sequence for the document, however many of its revisions the batch carried.
        let changes = try await temp.store.changes()
        #expect(changes.results.map(\.id).sorted() == ["crowded", "other"] && changes.lastSeq == 2)
        // A later batch may still extend a leaf (no new leaf) but not add one.
        let extended: JSONValue = [
            "_id": "crowded", "_rev": .string("2-" + String(repeating: "e", count: 32)),
            "_revisions": ["start": 2, "ids": [.string(String(repeating: "e", count: 32)), .string(String(format: "%032x", 3))]],
        ]
        #expect(try await temp.store.bulkDocs([extended], newEdits: false).isEmpty)
        let refused = try await temp.store.bulkDocs(Self.leaves(1, offset: 1_000), newEdits: false)
        #expect(refused.count == 1)
        let error = try #require(refused.first.flatMap { if case .failure(_, let error) = $0 { error } else { nil } })
        #expect(error.category == .tooLarge && error.message.contains("at most 100"))
    }

    @Test func interleavedRevisionsOfSeveralDocumentsAreEachMergedOnce() async throws {
        let temp = try TemporaryStore()
        var batch: [JSONValue] = []
        for index in 0..<300 {
            let id = ["a", "b", "c"][index % 3]
            batch.append(["_id": .string(id), "_rev": .string("1-" + String(format: "%032x", index)), "n": .number(JSONNumber(index))])
        }
        #expect(try await temp.store.bulkDocs(batch, newEdits: false).isEmpty)
        for id in ["a", "b", "c"] {
            #expect(try await temp.store.openRevisions(id: id, .all).count == 100)
        }
        // Merged per document, in the order each first appears: one sequence each.
        #expect(try await temp.store.changes().results.map(\.id) == ["a", "b", "c"])
    }

    @Test func aStubResolvesAgainstAnAncestorThatCameInTheSameBatch() async throws {
        let temp = try TemporaryStore()
        let first: JSONValue = [
            "_id": "d", "_rev": .string("1-" + String(repeating: "a", count: 32)),
            "_attachments": ["note.txt": ["content_type": "text/plain", "data": "aGVsbG8="]],
        ]
        let second: JSONValue = [
            "_id": "d", "_rev": .string("2-" + String(repeating: "b", count: 32)),
            "_revisions": ["start": 2, "ids": [.string(String(repeating: "b", count: 32)), .string(String(repeating: "a", count: 32))]],
            "_attachments": ["note.txt": ["stub": true, "revpos": 1]],
        ]
        #expect(try await temp.store.bulkDocs([first, second], newEdits: false).isEmpty)
        let document = try await temp.store.document(id: "d", options: ReadOptions(attachments: true))
        #expect(document["_rev"] == .string("2-" + String(repeating: "b", count: 32)))
        #expect(document["_attachments"]?["note.txt"]?["data"] == "aGVsbG8=")
    }

    @Test func aReplicatedBatchWhoseTaskIsCancelledWritesNothing() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let batch = Self.leaves(500) + (0..<500).map { ["_id": .string("doc-\($0)"), "_rev": "1-abc"] }
        let task = Task { try await store.bulkDocs(batch, newEdits: false) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await store.info().documentCount == 0)
    }
}
