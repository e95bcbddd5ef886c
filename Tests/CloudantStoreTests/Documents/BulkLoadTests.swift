import CloudantCore
@testable import CloudantStore
import Foundation
import Testing

@Suite("Bulk loading")
struct BulkLoadTests {
    private func writerSettings(_ store: DocumentStore) throws -> [Int] {
        try store.pool.write { db in
            try ["mmap_size", "cache_size", "wal_autocheckpoint"].map { try Int.fetchOne(db, sql: "PRAGMA \($0)") ?? 0 }
        }
    }

    @Test func theWriterIsTunedDuringALoadAndRestoredAfterEvenWhenTheLoadFails() async throws {
        let temp = try TemporaryStore()
        let before = try writerSettings(temp.store)
        let during = try await temp.store.bulkLoading {
            _ = try await temp.store.insertNew([try NewDocument(id: "a", body: ["v": 1])])
            return try writerSettings(temp.store)
        }
        #expect(during == [0, -16_384, 16_384])
        #expect(try writerSettings(temp.store) == before)
        struct Stop: Error {}
        await #expect(throws: Stop.self) { try await temp.store.bulkLoading { () async throws -> Int in throw Stop() } }
        #expect(try writerSettings(temp.store) == before)
        #expect(try await temp.store.document(id: "a")["v"] == 1)
    }
}
