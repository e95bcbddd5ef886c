import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@Suite("Bulk loading")
struct BulkLoadTests {
    private func writerSettings(_ store: DocumentStore) throws -> [Int] {
        try store.pool.write { db in
            try ["mmap_size", "cache_size", "journal_size_limit"].map { try Int.fetchOne(db, sql: "PRAGMA \($0)") ?? 0 }
        } + [store.checkpointer.backgroundPages.load(ordering: .relaxed), store.checkpointer.writerPages.load(ordering: .relaxed)]
    }

    @Test func theWriterIsTunedDuringALoadAndRestoredAfterEvenWhenTheLoadFails() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.insertNew([try NewDocument(id: "first", body: ["v": 0])])
        let before = try writerSettings(temp.store)
        let during = try await temp.store.bulkLoading {
            _ = try await temp.store.insertNew([try NewDocument(id: "a", body: ["v": 1])])
            return try writerSettings(temp.store)
        }
        // The writer checkpoints by itself at 256 MB of log; the store's checkpointer is not woken.
        #expect(during == [0, -16_384, -1, .max, 8_192])
        #expect(try writerSettings(temp.store) == before)
        // Outside loads, a log a load grew is cut back to 64 MB by the next checkpoint that empties it; the
        // store's checkpointer is woken from 1,000 pages and the writer checkpoints by itself from 16,384.
        #expect(before[2...] == [67_108_864, 1_000, 16_384])
        struct Stop: Error {}
        await #expect(throws: Stop.self) { try await temp.store.bulkLoading { () async throws -> Int in throw Stop() } }
        #expect(try writerSettings(temp.store) == before)
        #expect(try await temp.store.document(id: "a")["v"] == 1)
    }

    private func kindIndexSQL(_ store: DocumentStore) throws -> String? {
        try store.pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'documents_by_kind'")
        }
    }

    private func kindRegistry() throws -> EntityRegistry {
        var registry = EntityRegistry()
        try registry.register(EntityKind(Note.self))
        return registry
    }

    private func notes(_ range: Range<Int>) -> [Note] {
        range.map { Note(id: String(format: "note-%03d", $0), text: "n\($0)", createdAt: Date(timeIntervalSince1970: 1_763_700_000)) }
    }

    @Test func theMigrationsKindIndexIsTheOneALoadRebuilds() throws {
        let temp = try TemporaryStore()
        #expect(try kindIndexSQL(temp.store) == DeferredKindIndex.definition)
    }

    @Test func aLoadIntoAnEmptyStoreBuildsTheKindIndexAtTheEndAndKindQueriesWorkMeanwhile() async throws {
        let temp = try TemporaryStore(registry: kindRegistry())
        // A design document (where declared indexes live) does not make the store non-empty.
        _ = try await temp.store.put(["_id": "_design/indexes", "language": "query"])
        let during = try await temp.store.bulkLoading { () async throws -> (String?, [Note], [Int]) in
            _ = try await temp.store.add(notes(0..<50))
            return (try kindIndexSQL(temp.store), try await temp.store.get(Note.self), try writerSettings(temp.store))
        }
        #expect(during.0 == nil)
        #expect(during.1.map(\.id) == notes(0..<50).map(\.id))
        // Without the kind index the writer pages with a 4 MB cache, restored afterwards.
        #expect(during.2 == [0, -4_096, -1, .max, 8_192])
        #expect(try writerSettings(temp.store)[1] == -16_384)
        #expect(try kindIndexSQL(temp.store) == DeferredKindIndex.definition)
        let plan = try await temp.store.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM documents WHERE kind = 'Note' AND deleted = 0 ORDER BY id")
                .map { $0["detail"] as String }
        }
        #expect(plan.joined().contains("documents_by_kind"), "\(plan)")
        #expect(try await temp.store.get(Note.self).count == 50)
    }

    @Test func aLoadIntoAStoreWithDocumentsKeepsTheKindIndexUp() async throws {
        let temp = try TemporaryStore(registry: kindRegistry())
        _ = try await temp.store.add(notes(0..<1))
        let during = try await temp.store.bulkLoading { () async throws -> (String?, Int) in
            _ = try await temp.store.add(notes(1..<20))
            return (try kindIndexSQL(temp.store), try writerSettings(temp.store)[1])
        }
        #expect(during.0 == DeferredKindIndex.definition)
        #expect(during.1 == -16_384)
        #expect(try await temp.store.get(Note.self).count == 20)
    }

    @Test func aLoadThatFailsStillBuildsTheKindIndex() async throws {
        let temp = try TemporaryStore(registry: kindRegistry())
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await temp.store.bulkLoading { () async throws -> Int in
                _ = try await temp.store.add(notes(0..<10))
                throw Stop()
            }
        }
        #expect(try kindIndexSQL(temp.store) == DeferredKindIndex.definition)
        #expect(try await temp.store.get(Note.self).count == 10)
    }

    @Test func aStoreOpenedAfterALoadDiedWithoutItsKindIndexBuildsIt() async throws {
        let temp = try TemporaryStore(registry: kindRegistry())
        _ = try await temp.store.add(notes(0..<10))
        // What a process killed during a load into an empty store leaves: the documents, no index.
        try await temp.store.pool.write { db in try db.execute(sql: "DROP INDEX documents_by_kind") }
        try temp.store.close()
        let reopened = try temp.reopen(registry: kindRegistry())
        #expect(try kindIndexSQL(reopened) == DeferredKindIndex.definition)
        #expect(try await reopened.get(Note.self).count == 10)
    }

    @Test(
        "A load's log is copied into the database file by the writer alone, inside the commit that reaches 32 MB",
        arguments: [false, true])
    func aLoadsLogIsCopiedByTheWriterAlone(encrypted: Bool) async throws {
        let options = StoreOptions.encrypted(encrypted)
        let temp = try TemporaryStore(options: options)
        let store = temp.store
        let path = store.fileURL.path
        func insert(batch: Int) async throws {
            let documents = try (0..<300).map { number in
                try NewDocument(
                    id: String(format: "doc-%02d-%04d", batch, number),
                    body: ["n": .number(JSONNumber(number)), "pad": .string(randomText(count: 1_800))])
            }
            _ = try await store.insertNew(documents)
        }
        let sizeBefore = fileSize(path)
        let (before, after, grownBy) = try await store.bulkLoading { () async throws -> (Int, Int, Int) in
            // About 3 MB of log (random padding: bodies are compressed), far below 32 MB: nothing is copied,
            // no checkpoint is queued beside the writer.
            for batch in 0..<10 { try await insert(batch: batch) }
            let before = store.checkpointer.checkpointsRun.load(ordering: .relaxed)
            // With the writer's threshold lowered below the log, the next commit copies it before it returns.
            store.checkpointer.writerPages.store(200, ordering: .relaxed)
            try await insert(batch: 10)
            return (before, store.checkpointer.checkpointsRun.load(ordering: .relaxed), fileSize(path) - sizeBefore)
        }
        #expect(before == 0)
        #expect(after > 0)
        #expect(grownBy >= 2_000_000, "the database file holds the load once the writer checkpointed")
        #expect(store.checkpointer.writerPages.load(ordering: .relaxed) == LogCheckpointer.defaultWriterPages)
        try store.close()
        let reopened = try temp.reopen(options: options)
        #expect(try await reopened.document(id: "doc-10-0299")["n"] == 299)
        #expect(try await reopened.info().documentCount == 3_300)
    }
}

