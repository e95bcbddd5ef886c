import CloudantCore
@testable import CloudantStore
import Foundation
import Testing

@Suite("Bulk loading")
struct BulkLoadTests {
    private func writerSettings(_ store: DocumentStore) throws -> [Int] {
        try store.pool.write { db in
            try ["mmap_size", "cache_size", "wal_autocheckpoint", "journal_size_limit"].map { try Int.fetchOne(db, sql: "PRAGMA \($0)") ?? 0 }
        }
    }

    @Test func theWriterIsTunedDuringALoadAndRestoredAfterEvenWhenTheLoadFails() async throws {
        let temp = try TemporaryStore()
        let before = try writerSettings(temp.store)
        let during = try await temp.store.bulkLoading {
            _ = try await temp.store.insertNew([try NewDocument(id: "a", body: ["v": 1])])
            return try writerSettings(temp.store)
        }
        #expect(during == [0, -16_384, 65_536, -1])
        #expect(try writerSettings(temp.store) == before)
        // Outside loads, a log a load grew is cut back to 64 MB by the next checkpoint that empties it.
        #expect(before[3] == 67_108_864)
        struct Stop: Error {}
        await #expect(throws: Stop.self) { try await temp.store.bulkLoading { () async throws -> Int in throw Stop() } }
        #expect(try writerSettings(temp.store) == before)
        #expect(try await temp.store.document(id: "a")["v"] == 1)
    }
}
