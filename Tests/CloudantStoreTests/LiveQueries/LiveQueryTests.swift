import CloudantCore
import CloudantOnly
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Live queries")
struct LiveQueryTests {
    private func request(_ json: String) throws -> FindRequest {
        try FindRequest(JSONValue(parsing: json))
    }

    @Test func yieldsTheCurrentResultThenEachResultACommitChanges() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.put(["_id": "r1", "type": "reading", "v": 1])
        let r2 = try await store.put(["_id": "r2", "type": "reading", "v": 5])
        try await store.put(["_id": "x", "type": "other", "v": 9])
        let live = LiveQueryRecorder(store.observe(try request(#"{"selector":{"type":"reading"},"sort":[{"v":"desc"}],"limit":2}"#)))
        defer { live.cancel() }
        let first = try await live.wait { _ in true }
        #expect(first.ids == ["r2", "r1"])
        #expect(first.seq == 3)

        try await store.put(["_id": "r3", "type": "reading", "v": 3])
        try await live.wait { $0.ids == ["r2", "r3"] }
        try await store.delete(id: "r2", rev: r2.rev)
        try await live.wait { $0.ids == ["r3", "r1"] }
        let r1 = try await store.document(id: "r1")
        try await store.put(["_id": "r1", "_rev": .string(r1.rev ?? ""), "type": "archived", "v": 1])
        let last = try await live.wait { $0.ids == ["r3"] }
        #expect(last.seq == 6)
        // Each result differs from the one before: nothing was repeated.
        let all = live.all.map(\.ids)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test func aCommitThatCannotChangeTheResultYieldsNothing() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        for v in 1...3 { try await store.put(["_id": .string("r\(v)"), "type": "reading", "v": .number(JSONNumber(v))]) }
        let live = LiveQueryRecorder(store.observe(try request(#"{"selector":{"type":"reading"},"sort":["v"],"limit":2}"#)))
        defer { live.cancel() }
        try await live.wait { $0.ids == ["r1", "r2"] }
        try await store.put(["_id": "other", "type": "note"])           // does not match
        try await store.put(["_id": "late", "type": "reading", "v": 99])  // matches, sorts after a full page
        try await store.put(["_id": "nosort", "type": "reading"])         // lacks the sort field: left out
        try await store.put(["_id": "early", "type": "reading", "v": 0])  // enters the page
        try await live.wait { $0.ids == ["early", "r1"] }
        #expect(live.all.map(\.ids) == [["r1", "r2"], ["early", "r1"]])
    }

    @Test func projectedFieldsAreReturnedWhileChangesAreStillTrackedByID() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let a = try await store.put(["_id": "a", "kind": "patient", "name": "Ada", "secret": "x"])
        let live = LiveQueryRecorder(store.observe(try request(#"{"selector":{"kind":"patient"},"fields":["name"]}"#)))
        defer { live.cancel() }
        let first = try await live.wait { _ in true }
        #expect(first.docs == [["name": "Ada"]])
        try await store.put(["_id": "a", "_rev": .string(a.rev), "kind": "patient", "name": "Ada Lovelace"])
        try await live.wait { $0.docs == [["name": "Ada Lovelace"]] }
    }

    @Test func aBurstOfCommitsCoalescesAndEndsAtTheFinalResult() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let live = LiveQueryRecorder(store.observe(try request(#"{"selector":{"type":"reading"},"limit":1000}"#)))
        defer { live.cancel() }
        try await live.wait { $0.docs.isEmpty }
        for index in 0..<300 { try await store.put(["_id": .string(String(format: "r%03d", index)), "type": "reading"]) }
        let last = try await live.wait { $0.docs.count == 300 }
        #expect(last.seq == 300)
        #expect(live.all.count <= 301)
    }

    @Test func aPurgedDocumentLeavesTheResults() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let a = try await store.put(["_id": "a", "type": "reading"])
        try await store.put(["_id": "b", "type": "reading"])
        let live = LiveQueryRecorder(store.observe(try request(#"{"selector":{"type":"reading"}}"#)))
        defer { live.cancel() }
        try await live.wait { $0.ids == ["a", "b"] }
        _ = try await store.purge(["a": [a.rev]])
        try await live.wait { $0.ids == ["b"] }
    }

    @Test func aDocumentLeavingTheSkippedPartShiftsAWindowFurtherDown() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let a = try await store.put(["_id": "a", "type": "t"])
        try await store.put(["_id": "b", "type": "t"])
        try await store.put(["_id": "c", "type": "t"])
        let live = LiveQueryRecorder(store.observe(try request(#"{"selector":{"type":"t"},"skip":1,"limit":1}"#)))
        defer { live.cancel() }
        try await live.wait { $0.ids == ["b"] }
        try await store.delete(id: "a", rev: a.rev)
        try await live.wait { $0.ids == ["c"] }
    }

    /// The pump stops with the last live query; one started meanwhile gets a new pump and is not ended
    /// with the old one.
    @Test func aLiveQueryStartedAsTheLastOneEndsKeepsRunning() async throws {
        let temp = try TemporaryStore()
        let query = try request(#"{"selector":{"type":"t"},"limit":100}"#)
        for round in 0..<30 {
            let first = LiveQueryRecorder(temp.store.observe(query))
            try await first.wait { _ in true }
            first.cancel()
            let second = LiveQueryRecorder(temp.store.observe(query))
            try await second.wait { _ in true }
            try await temp.store.put(["_id": .string("r\(round)"), "type": "t"])
            try await second.wait { $0.ids.contains("r\(round)") }
            #expect(!second.hasEnded)
            second.cancel()
        }
    }

    @Test func closingTheStoreEndsTheSequenceWithoutAnError() async throws {
        let temp = try TemporaryStore()
        let live = LiveQueryRecorder(temp.store.observe(try request(#"{"selector":{}}"#)))
        try await live.wait { _ in true }
        try temp.store.close()
        try await live.waitForEnd()
        #expect(live.error == nil)
    }

    @Test func aQueryTheStoreRefusesEndsTheSequenceWithItsError() async throws {
        let temp = try TemporaryStore()
        let live = LiveQueryRecorder(temp.store.observe(try request(#"{"selector":{},"use_index":"nope","allow_fallback":false}"#)))
        try await live.waitForEnd()
        #expect(live.error is CloudantError)
    }

    @Test func theFluentBuilderObservesItsQuery() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let live = LiveQueryRecorder(try store.collection("OCKContact").where(field: "title", value: "Nurse").observe())
        defer { live.cancel() }
        try await live.wait { $0.docs.isEmpty }
        try await store.put(["_id": "c1", "entityType": "OCKContact", "title": "Nurse"])
        try await store.put(["_id": "c2", "entityType": "OCKContact", "title": "Doctor"])
        try await live.wait { $0.ids == ["c1"] }
    }

    @Test func theCallbackFormDeliversOnItsQueueUntilCancelled() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let queue = DispatchQueue(label: "live-callbacks")
        let seen = Seen()
        let observation = store.observe(try request(#"{"selector":{"type":"t"}}"#), callbackQueue: queue) { result in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .success(let answer) = result { seen.append(answer.ids) }
        }
        try await seen.wait { $0 == [[]] }
        try await store.put(["_id": "a", "type": "t"])
        try await seen.wait { $0.last == ["a"] }
        observation.cancel()
    }
}

/// Results a callback saw, for a test to wait on.
final class Seen: @unchecked Sendable {
    // `lock` protects `values`.
    private let lock = NSLock()
    private var values: [[String]] = []
    func append(_ ids: [String]) { lock.withLock { values.append(ids) } }
    func wait(until predicate: ([[String]]) -> Bool) async throws {
        do {
            try await waitUntil("the expected results", checkingEvery: .milliseconds(5)) {
                lock.withLock { predicate(values) }
            }
        } catch is DeadlineExceeded {
            Issue.record("the callback never saw the expected results: \(lock.withLock { values })")
        }
    }
}
