import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// A deleted database's store must take no more writes, and a store
/// created again at the same path must start empty whatever a crash left behind.
@Suite("Closing and deleting a store")
struct StoreLifecycleTests {
    @Test func aWriteAfterCloseFailsWithNotFoundAndNothingIsWritten() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        _ = try await store.put(["_id": "before"])
        try store.close()
        #expect(store.isClosed)
        do {
            _ = try await store.put(["_id": "after"])
            Issue.record("a closed store took a write")
        } catch let error as CloudantError {
            #expect(error.code == .notFound)
            #expect(error.context.database == store.name)
        }
        await #expect(throws: CloudantError.self) { _ = try await store.document(id: "before") }
        try store.close()  // closing twice does nothing
        let reopened = try temporary.reopen()
        #expect(try await reopened.document(id: "before")["_id"] == "before")
        await #expect(throws: CloudantError.self) { _ = try await reopened.document(id: "after") }
    }

    /// GRDB's pool checks that it is open before taking a connection, not while: a read racing the close
    /// once went on with a closed connection and crashed the process in SQLite.
    @Test func readsAndWritesRacingACloseEachSucceedOrFailWithTheClosedError() async throws {
        for round in 0..<30 {
            let temporary = try TemporaryStore()
            let store = temporary.store
            for index in 0..<20 { _ = try await store.put(["_id": .string("d\(index)"), "n": .number(JSONNumber(index))]) }
            let started = Gate()
            // Readers and writers go on until the store refuses them; each counts what it did.
            let workers = (0..<6).map { worker in
                Task { () -> Int in
                    var done = 0
                    while true {
                        do {
                            if worker.isMultiple(of: 3) {
                                _ = try await store.put(["_id": .string("w\(worker)-\(done)")])
                            } else {
                                _ = try await store.document(id: "d\(done % 20)")
                                _ = try await store.allDocs(AllDocsOptions(limit: 5))
                            }
                            done += 1
                            if done == 3 { started.open() }
                        } catch let error as CloudantError where error.code == .notFound && store.isClosed {
                            return done
                        }
                    }
                }
            }
            await onOwnThread { started.wait() }
            // Off the cooperative pool: closing waits for the uses in progress.
            try await onOwnThread { try store.close() }
            // Each ends with the closed error; any other error is thrown here and fails the test.
            var total = 0
            for worker in workers { total += try await worker.value }
            #expect(total >= 3, "round \(round)")
            let reopened = try temporary.reopen()
            #expect(try await reopened.document(id: "d0")["n"] == 0)
        }
    }

    @Test func aLiveFeedEndsWhenItsStoreCloses() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let feed = Task {
            var seen = 0
            for try await _ in store.liveChanges() { seen += 1 }
            return seen
        }
        _ = try await store.put(["_id": "a"])
        try store.close()
        // The feed ends (normally or with the closed error) instead of waiting forever.
        _ = await feed.result
    }

    @Test func deletedFilesLeaveNoStoreAndANewStoreStartsEmpty() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        _ = try await store.put(["_id": "old"])
        try store.close()
        try StoreDirectory.deleteFiles(of: store.fileURL, database: store.name)
        for suffix in ["", "-wal", "-shm", ".deleting"] {
            #expect(!FileManager.default.fileExists(atPath: store.fileURL.path + suffix), "\(suffix) left behind")
        }
        let fresh = try temporary.reopen()
        await #expect(throws: CloudantError.self) { _ = try await fresh.document(id: "old") }
    }

    @Test func aWALLeftByACrashMidDeletionIsNotReplayedIntoANewStore() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        for index in 0..<20 { _ = try await store.put(["_id": .string("old-\(index)")]) }
        // What a crash after the rename but before the companions were removed leaves: a -wal (here a copy
        // of a live one, full of committed frames) beside no database file. SQLite itself discards a WAL
        // beside an empty database file; the store also removes it before opening, so neither can replay it.
        let wal = store.fileURL.path + "-wal"
        let target = temporary.folder.appendingPathComponent("again.sqlite")
        try FileManager.default.copyItem(atPath: wal, toPath: target.path + "-wal")
        let again = try DocumentStore.open(name: "again", fileURL: target)
        #expect(try await again.changes().results.isEmpty)
        #expect(try await again.info().documentCount == 0)
    }

    /// A closed store's file holds every commit by itself: closing folds the write-ahead log back into the file
    /// and leaves it empty, whichever connection closes last, so a copy of the `.sqlite` file alone (a backup,
    /// a file sent elsewhere) has everything.
    @Test func closingFoldsTheLogIntoTheFile() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        _ = try await store.bulkDocs((0..<500).map { ["_id": .string("doc-\($0)"), "value": .number(JSONNumber($0))] })
        _ = try await store.document(id: "doc-1")
        try store.close()
        try await expectFileAloneHoldsEveryDocument(store.fileURL, folder: temporary.folder, count: 500)
    }

    /// The same for a store released without ``DocumentStore/close()``, as a command-line run ends.
    @Test func releasingAStoreFoldsTheLogIntoTheFile() async throws {
        let temporary = try TemporaryStore()
        let url = temporary.folder.appendingPathComponent("released.sqlite")
        try await Self.writeAndRelease(at: url, count: 500)
        try await expectFileAloneHoldsEveryDocument(url, folder: temporary.folder, count: 500)
    }

    private static func writeAndRelease(at url: URL, count: Int) async throws {
        let store = try DocumentStore.open(name: "released", fileURL: url)
        _ = try await store.bulkDocs((0..<count).map { ["_id": .string("doc-\($0)")] })
        _ = try await store.document(id: "doc-1")
    }

    private func expectFileAloneHoldsEveryDocument(_ url: URL, folder: URL, count: Int) async throws {
        let log = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0, "the log still holds \(log) bytes")
        let copy = folder.appendingPathComponent("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let reopened = try DocumentStore.open(name: "copy", fileURL: copy)
        defer { try? reopened.close() }
        #expect(try await reopened.info().documentCount == count)
    }
}
