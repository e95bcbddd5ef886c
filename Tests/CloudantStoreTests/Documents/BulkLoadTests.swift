import CipherVFS
import CloudantCore
@testable import CloudantStore
import Foundation
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
        let before = try writerSettings(temp.store)
        let during = try await temp.store.bulkLoading {
            _ = try await temp.store.insertNew([try NewDocument(id: "a", body: ["v": 1])])
            return try writerSettings(temp.store)
        }
        // The writer checkpoints by itself at 256 MB of log; the store's checkpointer is not woken.
        #expect(during == [0, -16_384, -1, .max, 65_536])
        #expect(try writerSettings(temp.store) == before)
        // Outside loads, a log a load grew is cut back to 64 MB by the next checkpoint that empties it; the
        // store's checkpointer is woken from 1,000 pages and the writer checkpoints by itself from 16,384.
        #expect(before[2...] == [67_108_864, 1_000, 16_384])
        struct Stop: Error {}
        await #expect(throws: Stop.self) { try await temp.store.bulkLoading { () async throws -> Int in throw Stop() } }
        #expect(try writerSettings(temp.store) == before)
        #expect(try await temp.store.document(id: "a")["v"] == 1)
    }

    @Test(
        "A load's log is copied into the database file beside the writer, long before the writer's own checkpoint comes due",
        arguments: [false, true])
    func aLoadsLogIsCopiedIntoTheFileBesideTheWriter(encrypted: Bool) async throws {
        var options = StoreOptions()
        if encrypted { options.encryptionKey = DatabaseKey.random() }
        let temp = try TemporaryStore(options: options)
        let store = temp.store
        let path = store.fileURL.path
        func fileSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
        let padding = String(repeating: "x", count: 900)
        let sizeBefore = fileSize()
        let copied = try await store.bulkLoading { () async throws -> Bool in
            for batch in 0..<10 {
                let documents = try (0..<300).map { number in
                    try NewDocument(id: String(format: "doc-%02d-%04d", batch, number), body: ["n": .number(JSONNumber(number)), "pad": .string(padding)])
                }
                _ = try await store.insertNew(documents)
            }
            // About 3 MB of log, far below the 256 MB at which the writer checkpoints during a load: only the
            // background checkpointer can have grown the file.
            // Generous: with the whole suite running, a checkpoint's `fdatasync` waits behind everyone else's.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if fileSize() >= sizeBefore + 2_000_000 { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            // Once more after the deadline: under the full suite this task's sleep can last past it (one CI run
            // woke after the deadline to a file already grown by 3.3 MB and reported it unchanged).
            return fileSize() >= sizeBefore + 2_000_000
        }
        let logSize = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
        #expect(copied, "the database file went from \(sizeBefore) to \(fileSize()) bytes, the log is \(logSize) bytes")
        let reopened = try temp.reopen(options: options)
        #expect(try await reopened.document(id: "doc-09-0299")["n"] == 299)
        #expect(try await reopened.info().documentCount == 3_000)
    }
}

