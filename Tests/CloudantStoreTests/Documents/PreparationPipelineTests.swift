import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Preparing a large batch while the writer writes")
struct PreparationPipelineTests {
    private func documents(_ count: Int) throws -> [IncomingDocument] {
        try (0..<count).map { index in
            try IncomingDocument(["_id": .string("doc-\(index)"), "n": .number(JSONNumber(index)), "tag": .string("t\(index % 7)")])
        }
    }

    /// The prepared writes a cursor yields, in order; nil when an entry is not an interactive write.
    private func preparedWrites(_ pipeline: PreparationPipeline) throws -> [PreparedWrite]? {
        var cursor = pipeline.makeCursor()
        var yielded: [PreparedWrite] = []
        while let next = try cursor.next() {
            guard case .interactive(let ready) = next else { return nil }
            yielded.append(ready)
        }
        return try cursor.next() == nil ? yielded : nil
    }

    @Test(
        "The cursor yields every document's prepared write in order, whoever prepared it",
        arguments: [0, 1, 31, 32, 33, 200, 1_000], [0, 1, 4])
    func theCursorYieldsEveryPreparedWriteInOrder(count: Int, helpers: Int) throws {
        let incoming = try documents(count)
        let pipeline = PreparationPipeline(.documents(incoming), compression: .couchDB)
        pipeline.startHelpers(count: helpers)
        let yielded = try #require(try preparedWrites(pipeline))
        #expect(yielded.map(\.incoming) == incoming)
        let expected = incoming.map { PreparedWrite($0) }
        #expect(yielded.map(\.body) == expected.map(\.body))
        #expect(yielded.map(\.speculativeHash) == expected.map(\.speculativeHash))
    }

    @Test("JSON documents are split as they are prepared, into the same writes", arguments: [0, 2])
    func jsonDocumentsAreSplitAsTheyArePrepared(helpers: Int) throws {
        let incoming = try documents(300)
        let values = incoming.map { document -> JSONValue in
            var object = document.body
            object["_id"] = document.id.map(JSONValue.string)
            return .object(object)
        }
        let pipeline = PreparationPipeline(.json(values), compression: .couchDB)
        pipeline.startHelpers(count: helpers)
        let yielded = try #require(try preparedWrites(pipeline))
        #expect(yielded.map(\.incoming) == incoming)
        #expect(yielded.map(\.body) == incoming.map { PreparedWrite($0).body })
    }

    @Test("With no helper able to run, the writer prepares every chunk itself")
    func theWriterPreparesEverythingWhenNoHelperRuns() throws {
        let pipeline = PreparationPipeline(.documents(try documents(500)), compression: .couchDB)
        // No helpers started: as when both cooperative threads are blocked by writers.
        var cursor = pipeline.makeCursor()
        var count = 0
        while try cursor.next() != nil { count += 1 }
        #expect(count == 500)
    }

    @Test("While a helper prepares the chunk the writer needs, the writer prepares the ones after it")
    func theWriterPreparesAheadWhileAHelperFinishes() async throws {
        let incoming = try documents(500)  // 16 chunks of 32
        let pipeline = PreparationPipeline(.documents(incoming), compression: .couchDB)
        // This test plays a helper that has claimed the first chunk and is slow to finish it.
        let held = try #require(pipeline.claimNext())
        #expect(held == 0)
        // The writer blocks until that chunk is ready: it runs on a thread of its own, and this test only ever
        // sleeps, so no thread of the cooperative pool is held (holding one starved the rest of the suite).
        let outcome = Mutex<Result<[PreparedWrite]?, any Error>?>(nil)
        Thread {
            let result = Result { () throws -> [PreparedWrite]? in
                var cursor = pipeline.makeCursor()
                var yielded: [PreparedWrite] = []
                while let next = try cursor.next() {
                    guard case .interactive(let ready) = next else { return nil }
                    yielded.append(ready)
                }
                return yielded
            }
            outcome.withLock { $0 = result }
        }.start()
        try await waitUntil("every document claimed", checkingEvery: .milliseconds(1)) { pipeline.allClaimed }
        pipeline.prepare(held)
        try await waitUntil("the writer's thread done", checkingEvery: .milliseconds(1)) { outcome.withLock { $0 } != nil }
        let result = try #require(outcome.withLock { $0 })
        let yielded = try #require(try result.get())
        #expect(yielded.map(\.incoming) == incoming)
        #expect(yielded.map(\.speculativeHash) == incoming.map { PreparedWrite($0).speculativeHash })
        #expect(pipeline.chunksPreparedWhileWaiting == 15)
    }

    /// A batch of `count` documents mixing new documents, updates, conflicts, deletions and local documents,
    /// against a store holding `doc-0` … `doc-99` at their first revision.
    private func mixedBatch(_ count: Int, revisions: [String: String]) -> [JSONValue] {
        (0..<count).map { index -> JSONValue in
            switch index % 6 {
            case 0: return .object(["_id": .string("new-\(index)"), "v": .number(JSONNumber(index))])
            case 1:
                let id = "doc-\(index % 100)"
                return .object(["_id": .string(id), "_rev": .string(revisions[id]!), "v": .number(JSONNumber(index))])
            case 2: return .object(["_id": .string("doc-\(index % 100)"), "_rev": .string("1-00000000000000000000000000000000"), "v": 1])
            case 3: return .object(["_id": .string("_local/l-\(index)"), "v": .number(JSONNumber(index))])
            case 4: return .object(["v": .number(JSONNumber(index))])  // a generated id
            default: return .object(["_id": .string("gone-\(index)"), "_deleted": true])
            }
        }
    }

    private func seeded() async throws -> (TemporaryStore, [String: String]) {
        let temp = try TemporaryStore()
        let seeds: [JSONValue] = (0..<100).map { .object(["_id": .string("doc-\($0)"), "v": 0]) }
        let results = try await temp.store.bulkDocs(seeds)
        let revisions = Dictionary(uniqueKeysWithValues: results.compactMap(\.result).map { ($0.id, $0.rev) })
        return (temp, revisions)
    }

    private func summary(_ results: [BulkDocsResult]) -> [String] {
        results.map { result in
            switch result {
            case .ok(let written): "ok \(written.id) \(written.rev)"
            case .failure(let id, let error): "failed \(id ?? "-") \(error.code)"
            }
        }
    }

    @Test("A batch large enough for the pipeline writes and reports exactly what the same documents in small batches do")
    func aPipelinedBatchMatchesSmallBatches() async throws {
        let (large, revisions) = try await seeded()
        let (small, sameRevisions) = try await seeded()
        #expect(revisions == sameRevisions)
        let batch = mixedBatch(600, revisions: revisions)
        let pipelined = try await large.store.bulkDocs(batch)
        var inSmallBatches: [BulkDocsResult] = []
        for start in stride(from: 0, to: batch.count, by: 50) {
            inSmallBatches += try await small.store.bulkDocs(Array(batch[start..<min(start + 50, batch.count)]))
        }
        #expect(summary(pipelined) == summary(inSmallBatches))
        // 100 stale revisions, and 50 second updates of an id (`doc-1` at 1 and 301) naming its first revision.
        #expect(pipelined.filter { $0.error?.code == .conflict }.count == 150)
        let left = try await large.store.allDocs(AllDocsOptions())
        let right = try await small.store.allDocs(AllDocsOptions())
        #expect(left.rows == right.rows)
        #expect(left.totalRows == 100 + 100 + 100)  // seeds, new, generated (deletions leave no row)
    }

    @Test("A malformed document in a pipelined batch rejects the whole batch, as before any write", arguments: [5, 599])
    func aMalformedDocumentRejectsAPipelinedBatch(position: Int) async throws {
        let (temp, revisions) = try await seeded()
        for malformed: JSONValue in [.array([1]), .object(["_id": .string("bad-\(position)"), "_private": 1])] {
            var batch = mixedBatch(600, revisions: revisions)
            batch[position] = malformed
            let error = await #expect(throws: CloudantError.self) { try await temp.store.bulkDocs(batch) }
            #expect(error?.code == (malformed.objectValue == nil ? .invalidInput : .documentValidation))
            #expect(error?.context.itemIndex == position)
            if malformed.objectValue != nil { #expect(error?.context.documentID == "bad-\(position)") }
            // The same error as a batch too small for the pipeline, and nothing of either was written.
            let small = await #expect(throws: CloudantError.self) { try await temp.store.bulkDocs(Array(batch[..<(position + 1)])) }
            #expect(small?.code == error?.code)
            #expect(small?.context.itemIndex == error?.context.itemIndex)
            #expect(small?.message == error?.message)
        }
        #expect(try await temp.store.allDocs(AllDocsOptions()).totalRows == 100)
    }
}
