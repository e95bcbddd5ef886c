import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Compaction gives space back to the file system, and stats say what there is to
/// give back.
@Suite("Bounded disk: compaction shrinks the file")
struct BoundedDiskTests {
    /// 1,000 documents of about 1 KB go through 100,000 updates and deletes (a tenth of the rounds delete
    /// every document, the next one writes them again). After compaction the file is within 2× of what the
    /// store must keep: the live bodies and the revision trees replication needs.
    @Test func aFileChurnedByAHundredThousandUpdatesAndDeletesShrinksToWithinTwiceItsLiveData() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let documents = 1_000
        var revisions = [String: String]()
        for round in 0..<100 {
            let deleting = round % 10 == 8
            let batch: [JSONValue] = (0..<documents).map { index in
                let id = "doc-\(index)"
                var document: JSONObject = ["_id": .string(id)]
                if let rev = revisions[id] { document["_rev"] = .string(rev) }
                if deleting {
                    document["_deleted"] = true
                } else {
                    document["round"] = .number(JSONNumber(round))
                    // Random padding in every revision: the store compresses bodies (with a dictionary trained
                    // from them), and this test weighs old bodies against live ones.
                    document["pad"] = .string(randomText(count: 1_000))
                }
                return .object(document)
            }
            for result in try await store.bulkDocs(batch) {
                guard case .ok(let written) = result else {
                    Issue.record("a churn write failed: \(result)")
                    return
                }
                // A deleted document is written again without `_rev`, as CouchDB requires.
                revisions[written.id] = deleting ? nil : written.rev
            }
        }
        let churned = try await store.storageStats()
        #expect(churned.liveDocuments == documents && churned.deletedDocuments == 0)
        #expect(churned.otherRevisionBodies > 80_000)
        #expect(churned.reclaimableBytes > churned.fileSize / 2, "\(churned)")

        let dropped = try await store.compact()
        #expect(dropped == churned.otherRevisionBodies)
        let compacted = try await store.storageStats()
        let live = compacted.liveBodyBytes + compacted.treeBytes + compacted.attachmentBytes
        #expect(compacted.otherRevisionBodies == 0 && compacted.reclaimableBytes < compacted.fileSize / 10)
        #expect(compacted.fileSize <= 2 * live, "file \(compacted.fileSize) bytes for \(live) bytes of live data")
        #expect(compacted.fileSize * 10 < churned.fileSize, "compaction gave back less than 90 %: \(churned.fileSize) → \(compacted.fileSize)")
        print("churn: \(churned.fileSize) bytes → \(compacted.fileSize) after compaction; live data \(live) bytes (bodies \(compacted.liveBodyBytes), trees \(compacted.treeBytes))")
        // Every document still reads, with its whole history of revision ids.
        let sample = try await store.document(id: "doc-7", options: ReadOptions(revs: true))
        #expect(sample["round"] == 99 && sample["_revisions"]?["ids"]?.arrayValue?.count == 100)
        #expect(try await store.integrityCheck() == ["ok"])
    }

    /// Entries written in another order than their index's (random keys, random ids) leave B-tree pages part
    /// full, with no free page to give back; compaction counts that space too and rebuilds the file, whose
    /// pages then come out nearly full, and a second compaction finds little to do.
    @Test func compactionRepacksIndexPagesThatRandomlyOrderedWritesLeftPartFull() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.createIndex(IndexDefinition(name: "by-key", designDocument: "keys", fields: [.ascending("key")]))
        for _ in 0..<20 {
            let batch: [JSONValue] = (0..<500).map { _ in
                ["_id": .string(UUID().uuidString), "key": .string(randomText(count: 24)), "n": 1]
            }
            for result in try await store.bulkDocs(batch) {
                guard case .ok = result else {
                    Issue.record("a write failed: \(result)")
                    return
                }
            }
        }
        let written = try await store.storageStats()
        #expect(written.freeBytes == 0, "\(written)")  // nothing was deleted: only space inside pages to give back

        let summary = try await store.compact(progress: nil)
        let compacted = try await store.storageStats()
        #expect(summary.bytesReclaimed > 0 && compacted.fileSize < written.fileSize, "\(written.fileSize) → \(compacted.fileSize)")
        #expect(try await store.compact(progress: nil).bytesReclaimed <= compacted.fileSize / 20)
        #expect(compacted.liveDocuments == 10_001)  // and the index's design document
        let found = try await store.find(FindRequest(selector: try MangoSelector(["key": ["$gt": ""]]), limit: 20_000))
        #expect(found.docs.count == 10_000)
        #expect(try await store.integrityCheck() == ["ok"])
    }

    @Test func aStoreWithLittleFreeSpaceIsNotRebuilt() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "only", "v": 1])
        #expect(try await temp.store.reclaimSpace(threshold: 0.5) == 0)
        let stats = try await temp.store.storageStats()
        #expect(stats.liveDocuments == 1 && stats.revisionBodies == 1 && stats.otherRevisionBodies == 0)
    }
}
