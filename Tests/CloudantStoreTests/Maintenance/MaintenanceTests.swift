import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Compaction, purge, info and schema")
struct MaintenanceTests {
    @Test func infoCountsFollowEveryWriteDeleteAndPurgeIncludingAnotherConnections() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        for id in ["a", "b", "c"] { try await store.put(["_id": .string(id), "text": "twelve bytes"]) }
        let first = try await store.info()
        #expect(first.documentCount == 3 && first.deletedDocumentCount == 0)
        let again = try await store.info()
        #expect(again.documentCount == 3 && again.activeSize == first.activeSize, "nothing changed: the same answer")

        let b = try await store.document(id: "b")
        _ = try await store.delete(id: "b", rev: try #require(b.rev))
        var info = try await store.info()
        #expect(info.documentCount == 2 && info.deletedDocumentCount == 1 && info.activeSize < first.activeSize)

        // A write through another connection to the file (another process would do the same) is seen.
        let other = try temp.reopen()
        try await other.put(["_id": "d", "text": "from elsewhere"])
        info = try await store.info()
        #expect(info.documentCount == 3)

        // A purge takes no new sequence, and is seen too.
        let a = try await store.document(id: "a")
        _ = try await store.purge(["a": [try #require(a.rev)]])
        info = try await store.info()
        #expect(info.documentCount == 2 && info.deletedDocumentCount == 1)
        try other.close()
    }

    @Test func compactionDropsOldBodiesButKeepsTheTreeAndLeaves() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a", "v": 1])
        let second = try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "v": 2])
        #expect(try await temp.store.document(id: "a", options: ReadOptions(rev: first.rev))["v"] == 1)
        #expect(try await temp.store.compact() == 1)
        let gone = await #expect(throws: CloudantError.self) {
            try await temp.store.document(id: "a", options: ReadOptions(rev: first.rev))
        }
        #expect(gone?.code == .notFound)
        let doc = try await temp.store.document(id: "a", options: ReadOptions(revs: true, revsInfo: true))
        #expect(doc.rev == second.rev)
        #expect(doc["_revisions"]?["ids"]?.arrayValue?.count == 2)
        #expect(doc["_revs_info"]?.arrayValue?.map { $0["status"] } == ["available", "missing"])
    }

    @Test func aDeletionTheDocumentWasRecreatedAfterReadsDeletedUntilCompactionAndMissingAfter() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a", "v": 1])
        let deletion = try await temp.store.delete(id: "a", rev: first.rev)
        let recreated = try await temp.store.put(["_id": "a", "v": 3])
        let options = ReadOptions(revsInfo: true)
        var info = try await temp.store.document(id: "a", options: options)["_revs_info"]?.arrayValue
        #expect(info?.map { $0["rev"] } == [.string(recreated.rev), .string(deletion.rev), .string(first.rev)])
        #expect(info?.map { $0["status"] } == ["available", "deleted", "available"])
        try await temp.store.compact()
        info = try await temp.store.document(id: "a", options: options)["_revs_info"]?.arrayValue
        #expect(info?.map { $0["status"] } == ["available", "missing", "missing"], "couch_db:doc_meta_info reads a compacted body as missing first")
    }

    @Test func compactionKeepsLosingLeafBodiesAndDeletesUnreferencedAttachmentBytes() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([["_id": "d", "_rev": .string(rev(1, "b")), "side": "b"]], newEdits: false)
        _ = try await temp.store.bulkDocs([["_id": "d", "_rev": .string(rev(1, "c")), "side": "c"]], newEdits: false)
        let first = try await temp.store.put(["_id": "e", "_attachments": ["x": ["content_type": "text/plain", "data": "YQ=="]]])
        try await temp.store.put(["_id": "e", "_rev": .string(first.rev)])
        try await temp.store.compact()
        #expect(try await temp.store.document(id: "d", options: ReadOptions(rev: rev(1, "b")))["side"] == "b")
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.attachment(documentID: "e", name: "x", rev: first.rev)
        }
        #expect(error?.code == .notFound)
    }

    @Test func purgingTheOnlyLeafRemovesTheDocumentEntirely() async throws {
        let temp = try TemporaryStore()
        let written = try await temp.store.put(["_id": "a"])
        let purged = try await temp.store.purge(["a": [written.rev]])
        #expect(purged == ["a": [written.rev]])
        let error = await #expect(throws: CloudantError.self) { try await temp.store.document(id: "a") }
        #expect(error?.message == "missing")
        #expect(try await temp.store.info().purgeSeq == 1)
        #expect(try await temp.store.revsDiff(["a": [written.rev]])["a"]?.missing.map(\.description) == [written.rev])
    }

    @Test func purgingTheWinnerPromotesTheOtherLeaf() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([["_id": "d", "_rev": .string(rev(1, "b")), "side": "b"]], newEdits: false)
        _ = try await temp.store.bulkDocs([["_id": "d", "_rev": .string(rev(1, "c")), "side": "c"]], newEdits: false)
        try await temp.store.purge(["d": [rev(1, "c")]])
        let doc = try await temp.store.document(id: "d", options: ReadOptions(conflicts: true))
        #expect(doc.rev == rev(1, "b"))
        #expect(doc["side"] == "b")
        #expect(doc["_conflicts"] == nil)
    }

    @Test func infoCountsLiveAndDeletedDocumentsLikeCouchDB() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a"])
        let b = try await temp.store.put(["_id": "b"])
        try await temp.store.delete(id: "b", rev: b.rev)
        let info = try await temp.store.info()
        #expect(info.documentCount == 1)
        #expect(info.deletedDocumentCount == 1)
        #expect(info.updateSeq == 3)
        #expect(info.json["db_name"] == "test")
        // When the store was created, in whole seconds; it does not move when the store is opened again.
        let created = try #require(Int(info.instanceStartTime))
        #expect(abs(created - Int(Date().timeIntervalSince1970)) < 24 * 3600)
        #expect(info.json["instance_start_time"] == .string(info.instanceStartTime))
        try temp.store.close()
        let reopened = try temp.reopen()
        #expect(try await reopened.info().instanceStartTime == info.instanceStartTime)
        try reopened.close()
    }

    @Test func theAppliedMigrationsAreTheNamedAppendOnlyList() async throws {
        let temp = try TemporaryStore()
        let expected = [
            "2026-11-21-documents-v1", "2026-11-21-mango-indexes-v1", "2026-11-25-incremental-store-kinds",
            "2026-11-25-column-projections", "2026-11-26-pending-writes", "2026-11-26-document-expiry",
            "2026-11-26-tombstone-times", "2026-11-26-attachment-files", "2026-11-28-collation-keys-v2",
            "2026-11-28-purge-infos",
            "2026-11-29-view-indexes", "2026-11-30-body-dictionaries", "2026-11-30-projection-rows-by-row-id",
            "2026-12-01-projection-labels", "2026-12-01-collation-keys-v3", "2026-12-01-winner-from-tree",
            "2026-12-01-kind-numbers", "2026-12-04-creation-time", "2026-12-04-index-metadata",
        ]
        #expect(try await temp.store.appliedMigrations() == expected)
        #expect(try await temp.reopen().appliedMigrations() == expected)
    }

    @Test func theStoreFileIsInWALModeAndPassesIntegrityCheck() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a"])
        #expect(FileManager.default.fileExists(atPath: temp.store.fileURL.path + "-wal"))
        #expect(try await temp.store.integrityCheck() == ["ok"])
    }

    @Test func aStoreUUIDIsStableAcrossReopening() async throws {
        let temp = try TemporaryStore()
        #expect(temp.store.uuid.count == 32)
        #expect(try temp.reopen().uuid == temp.store.uuid)
    }
}
