@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// Reads on the calling thread (`readNow`: documents by id, indexed finds) beside async reads (unindexed
/// finds) from many tasks at once: they once shared GRDB's reader pool, and a synchronous read waiting for
/// a pool connection held by an async read that needed a cooperative thread to give it back stopped the
/// whole process.
@Suite("Reads on the calling thread")
struct ImmediateReadersTests {
    /// Ends the test process with a clear message when `seconds` pass with no read finishing (``progressed()``)
    /// while the process is idle, before `finished()` is called: a deadlocked cooperative pool cannot run an
    /// async timeout, and a hung test says nothing. A deadlock leaves the process idle; a process that keeps
    /// the processor busy (the rest of the suite beside these reads, on two loaded cores in CI) is slow, not
    /// stuck, and is watched for another window.
    private final class Watchdog: Sendable {
        private let done = Atomic<Bool>(false)
        private let reads = Atomic<Int>(0)
        private let seconds: Double
        private let message: String

        init(seconds: Double, _ message: String) {
            self.seconds = seconds
            self.message = message
            check(after: 0, cpu: Self.processorSeconds())
        }

        /// The processor time the whole test process has used so far.
        private static func processorSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let total = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
            return Double(total) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }

        /// Looks again in `seconds`: if no read finished since `seen` and the process used almost no processor
        /// time since `cpu`, the reads are stuck.
        private func check(after seen: Int, cpu: Double) {
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                guard !done.load(ordering: .acquiring) else { return }
                let now = reads.load(ordering: .relaxed)
                let used = Self.processorSeconds()
                if now == seen && used - cpu < seconds / 20 {
                    fatalError("\(message) (\(now) reads finished, none in the last \(Int(seconds)) s, the process idle)")
                }
                check(after: now, cpu: used)
            }
        }

        func progressed() { reads.add(1, ordering: .relaxed) }

        func finished() { done.store(true, ordering: .releasing) }
    }

    @Test("Many tasks mixing reads on the calling thread with async reads all finish, with the right answers")
    func synchronousAndAsyncReadsFromManyTasksNeverDeadlock() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.bulkDocs((0..<300).map { ["_id": .string(String(format: "doc-%03d", $0)), "kind": .number(JSONNumber($0 % 3)), "n": .number(JSONNumber($0))] })
        _ = try await store.createIndex(try IndexDefinition(indexRequest: ["index": ["fields": ["kind"]], "name": "kind"]))
        let indexed = try FindRequest(["selector": ["kind": 1], "limit": 200])
        let unindexed = try FindRequest(["selector": ["n": ["$gte": 150]], "limit": 200])

        let watchdog = Watchdog(
            seconds: Double(TestDeadline.generous.components.seconds),
            "reads deadlocked: 64 tasks of mixed synchronous and async reads stopped finishing")
        defer { watchdog.finished() }
        let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
            for task in 0..<64 {
                group.addTask {
                    var counts: [Int] = []
                    for round in 0..<30 {
                        switch (task + round) % 3 {
                        case 0: counts.append(try await store.find(indexed).docs.count)
                        case 1: counts.append(try await store.find(unindexed).docs.count)
                        default: counts.append(try await store.document(id: String(format: "doc-%03d", round * 7))["n"] == JSONValue.number(JSONNumber(round * 7)) ? 1 : 0)
                        }
                        watchdog.progressed()
                    }
                    return counts
                }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(counts.count == 64 * 30)
        #expect(Set(counts) == [100, 150, 1])
    }

    @Test("A read on the calling thread sees an index created through another connection, then its deletion")
    func aReadAfterASchemaChangeUsesTheNewSchema() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.bulkDocs((0..<20).map { ["_id": .string("d\($0)"), "kind": .number(JSONNumber($0 % 2))] })
        let request = try FindRequest(["selector": ["kind": 0]])
        #expect(try await store.find(request).docs.count == 10)
        let created = try await store.createIndex(try IndexDefinition(indexRequest: ["index": ["fields": ["kind"]], "name": "kind"]))
        let indexedResult = try await store.find(request)
        #expect(indexedResult.docs.count == 10)
        #expect(indexedResult.warning == nil, "the new index answers")
        try await store.deleteIndex(designDocument: created.id, name: "kind")
        #expect(try await store.find(request).docs.count == 10)
    }

    @Test("Closing the store (twice) closes its connections, and later reads are refused with the store's error")
    func closingRefusesLaterReads() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.put(["_id": "x", "n": 1])
        #expect(try await store.document(id: "x")["n"] == 1)
        try store.close()
        try store.close()
        let error = await #expect(throws: CloudantError.self) { try await store.document(id: "x") }
        #expect(error?.code == .notFound)
    }
}
