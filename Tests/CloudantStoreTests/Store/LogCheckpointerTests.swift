import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

@Suite("The log checkpointer")
struct LogCheckpointerTests {
    /// Writes `batches` batches of 100 documents of about 2 KB (about 50 pages of log each).
    private func write(_ batches: Int, to store: DocumentStore, prefix: String = "doc") async throws {
        for batch in 0..<batches {
            // Random filler: the store compresses bodies, and these tests count the pages the log grows by.
            let documents: [JSONValue] = (0..<100).map {
                .object(["_id": .string("\(prefix)-\(batch)-\($0)"), "filler": .string(randomText(count: 2_000))])
            }
            let results = try await store.bulkDocs(documents)
            #expect(results.allSatisfy { if case .ok = $0 { true } else { false } })
        }
    }

    /// Waits for the store's checkpointer to have run once.
    private func waitForACheckpoint(_ store: DocumentStore) async throws {
        try? await waitUntil("a checkpoint", checkingEvery: .milliseconds(20)) {
            store.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0
        }
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test(
        "Once the log holds 1,000 pages, the checkpointer copies it into the file and the writer does not",
        arguments: [false, true])
    func theCheckpointerCopiesTheLogInsteadOfTheWriter(encrypted: Bool) async throws {
        var options = StoreOptions()
        if encrypted { options.encryptionKey = DatabaseKey.random() }
        let temp = try TemporaryStore(options: options)
        let store = temp.store
        let sizeBefore = fileSize(store.fileURL.path)
        try await write(60, to: store)  // about 3,000 pages: the writer's own threshold (16,384) is far off
        try? await waitUntil("a checkpoint that grew the file", checkingEvery: .milliseconds(20)) {
            store.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0 && fileSize(store.fileURL.path) >= sizeBefore + 4_000_000
        }
        #expect(store.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0)
        #expect(fileSize(store.fileURL.path) >= sizeBefore + 4_000_000, "the database file holds the checkpointed pages")
        try store.close()
        let reopened = try temp.reopen(options: options)
        #expect(try await reopened.allDocs(AllDocsOptions()).totalRows == 6_000)
        try reopened.close()
    }

    @Test("With the checkpointer not woken, the writer checkpoints by itself once the log reaches its own threshold")
    func theWriterCheckpointsByItselfPastItsThreshold() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        store.checkpointer.backgroundPages.store(.max, ordering: .relaxed)
        store.checkpointer.writerPages.store(200, ordering: .relaxed)
        let sizeBefore = fileSize(store.fileURL.path)
        try await write(10, to: store)  // about 500 pages
        // The writer's checkpoint ran inside a commit, so the file has grown by the time the write returns.
        #expect(fileSize(store.fileURL.path) >= sizeBefore + 500_000)
        #expect(store.checkpointer.checkpointsRun.load(ordering: .relaxed) == 0)
        #expect(try await store.allDocs(AllDocsOptions()).totalRows == 1_000)
    }

    @Test("Closing a store closes its checkpointer's connection; the store opened again on the file has its own")
    func closingStopsTheCheckpointer() async throws {
        let temp = try TemporaryStore()
        try await write(30, to: temp.store)
        try await waitForACheckpoint(temp.store)
        #expect(temp.store.checkpointer.isOpen)
        try temp.store.close()
        #expect(!temp.store.checkpointer.isOpen)
        let reopened = try temp.reopen()
        try await write(30, to: reopened, prefix: "again")
        try await waitForACheckpoint(reopened)
        #expect(reopened.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0)
        #expect(try await reopened.allDocs(AllDocsOptions()).totalRows == 6_000)
        try reopened.close()
    }
}

/// `count` characters of random hex (about half as many bytes of entropy): text compression barely shrinks.
///
/// Sixteen digits come from each random word: drawing one per character asked the kernel for entropy once per
/// character, which in a debug build was most of a test that writes 100 MB of such text.
func randomText(count: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(count)
    while text.count < count {
        var word = generator.next()
        for _ in 0..<min(16, count - text.count) {
            text.append(digits[Int(word & 0xF)])
            word >>= 4
        }
    }
    return String(decoding: text, as: UTF8.self)
}
