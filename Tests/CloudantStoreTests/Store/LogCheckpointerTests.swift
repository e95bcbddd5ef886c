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

    @Test(
        "Once the log holds 1,000 pages, a checkpoint runs on the writer after the commit instead of inside it",
        arguments: [false, true])
    func aQueuedCheckpointCopiesTheLog(encrypted: Bool) async throws {
        let options = StoreOptions.encrypted(encrypted)
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

    @Test("With no checkpoint queued, the writer checkpoints inside the commit once the log reaches its own threshold")
    func theWriterCheckpointsByItselfPastItsThreshold() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        store.checkpointer.backgroundPages.store(.max, ordering: .relaxed)
        store.checkpointer.writerPages.store(200, ordering: .relaxed)
        let sizeBefore = fileSize(store.fileURL.path)
        try await write(10, to: store)  // about 500 pages
        // The writer's checkpoint ran inside a commit, so the file has grown by the time the write returns.
        #expect(fileSize(store.fileURL.path) >= sizeBefore + 500_000)
        #expect(store.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0)
        #expect(try await store.allDocs(AllDocsOptions()).totalRows == 1_000)
    }

    /// SQLite's WAL-reset bug loses commits when a checkpoint overlaps another connection's commit, so while
    /// view maintenance holds the exclusion (as it does for a whole index update) neither a queued checkpoint
    /// nor the writer's own runs; the log only grows, and the first commit after copies it.
    @Test("No checkpoint runs while view maintenance may write; the writes after it are checkpointed")
    func noCheckpointRunsWhileAnotherConnectionMayWrite() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        store.checkpointer.writerPages.store(400, ordering: .relaxed)
        let exclusion = ExclusionHolder(store.checkpointer.writeExclusion)
        try await write(40, to: store)  // about 2,000 pages: past both thresholds
        // The queued checkpoints run on the writer gate's thread: once the writes are done and they had their
        // turn, each was skipped.
        try? await waitUntil("the queued checkpoints to be skipped", checkingEvery: .milliseconds(20)) {
            store.writerGate.writesInFlight == 0 && store.checkpointer.checkpointsSkipped.load(ordering: .relaxed) > 0
        }
        #expect(store.checkpointer.checkpointsRun.load(ordering: .relaxed) == 0)
        #expect(store.checkpointer.checkpointsSkipped.load(ordering: .relaxed) > 0)
        #expect(fileSize(store.fileURL.path + "-wal") >= 4_000_000, "the log kept every page")

        exclusion.release()
        let sizeBefore = fileSize(store.fileURL.path)
        try await write(10, to: store, prefix: "after")
        #expect(store.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0)
        #expect(fileSize(store.fileURL.path) >= sizeBefore + 4_000_000, "the file holds the pages written meanwhile")
        try store.close()
        let reopened = try temp.reopen()
        #expect(try await reopened.allDocs(AllDocsOptions()).totalRows == 5_000)
        try reopened.close()
    }

    @Test("A closed store queues no more checkpoints; the store opened again on the file checkpoints its own writes")
    func closingStopsTheCheckpointer() async throws {
        let temp = try TemporaryStore()
        try await write(30, to: temp.store)
        try await waitForACheckpoint(temp.store)
        try temp.store.close()
        let runs = temp.store.checkpointer.checkpointsRun.load(ordering: .relaxed)
        let reopened = try temp.reopen()
        try await write(30, to: reopened, prefix: "again")
        try await waitForACheckpoint(reopened)
        #expect(temp.store.checkpointer.checkpointsRun.load(ordering: .relaxed) == runs)
        #expect(reopened.checkpointer.checkpointsRun.load(ordering: .relaxed) > 0)
        #expect(try await reopened.allDocs(AllDocsOptions()).totalRows == 6_000)
        try reopened.close()
    }
}

/// Holds a lock on a thread of its own until ``release()`` (an `NSLock` is unlocked by the thread that locked
/// it, and a test's task may resume on another).
private final class ExclusionHolder: Sendable {
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(_ lock: NSLock) {
        Thread { [held, released, finished] in
            lock.lock()
            held.signal()
            released.wait()
            lock.unlock()
            finished.signal()
        }.start()
        held.wait()
    }

    func release() {
        released.signal()
        finished.wait()
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
