import CloudantCore
import CloudantOnly
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Swift views")
struct SwiftViewTests {
    static let byKind = SwiftView(name: "by-kind", version: 1, reduce: .builtIn(.count)) { document, emit in
        guard case .string(let kind)? = document["kind"] else { return }
        emit(.string(kind), document["n"] ?? .null)
    }

    static let sums = SwiftView(
        name: "sums", version: 1,
        reduce: .custom(
            reduce: { _, values in .number(JSONNumber(values.compactMap { $0.numberValue?.doubleValue }.reduce(0, +))) },
            rereduce: { values in .number(JSONNumber(values.compactMap { $0.numberValue?.doubleValue }.reduce(0, +))) })
    ) { document, emit in
        if case .number? = document["n"] { emit(document["kind"] ?? .null, document["n"] ?? .null) }
    }

    @Test func aSwiftViewMapsReducesAndAnswersLikeAJavaScriptOne() async throws {
        let temp = try TemporaryStore()
        try await temp.store.write([["_id": "a", "kind": "x", "n": 1], ["_id": "b", "kind": "y", "n": 2], ["_id": "c", "kind": "x", "n": 3]])
        let counts = try await temp.store.queryView(Self.byKind, query: .parameters(("group", "true")))
        #expect(counts.keys == ["x", "y"] && counts.values == [2, 1])
        let rows = try await temp.store.queryView(Self.byKind, query: .parameters(("reduce", "false"), ("include_docs", "true")))
        #expect(rows.ids == ["a", "c", "b"] && rows.totalRows == 3)
        #expect(rows.rows[0].document?["n"] == 1)
        let sums = try await temp.store.queryView(Self.sums, query: .parameters(("group", "true")))
        #expect(sums.values == [4, 2])
    }

    @Test func aSwiftViewIsKeptIncrementally() async throws {
        let temp = try TemporaryStore()
        let revs = try await temp.store.write([["_id": "a", "kind": "x"], ["_id": "b", "kind": "y"]])
        #expect(try await temp.store.queryView(Self.byKind).values == [2])
        try await temp.store.delete(id: "a", rev: try #require(revs["a"]))
        try await temp.store.write([["_id": "c", "kind": "z"]])
        let rows = try await temp.store.queryView(Self.byKind, query: .parameters(("reduce", "false")))
        #expect(rows.keys == ["y", "z"])
    }

    @Test func aNewVersionIsANewIndexAndCleanupRemovesTheOlder() async throws {
        let temp = try TemporaryStore()
        try await temp.store.write([["_id": "a", "kind": "x"]])
        var second = Self.byKind
        second.version = 2
        second.map = { document, emit in emit(.string(document.id), 1) }
        _ = try await temp.store.queryView(Self.byKind)
        #expect(try await temp.store.queryView(second, query: .parameters(("reduce", "false"))).keys == ["a"])
        #expect(try await temp.store.cleanupViewIndexes() == [Self.byKind.signature])
    }

    @Test func aDocumentTheClosureThrowsForEmitsNothing() async throws {
        struct Refused: Error {}
        let picky = SwiftView(name: "picky", version: 1) { document, emit in
            if document.id == "bad" { throw Refused() }
            emit(.string(document.id), .null)
        }
        let temp = try TemporaryStore()
        try await temp.store.write([["_id": "bad"], ["_id": "good"]])
        #expect(try await temp.store.queryView(picky).ids == ["good"])
    }

    @Test func theCallbackAdapterAnswersOnTheGivenQueueWithTheSameRowsOrTheError() async throws {
        let temp = try TemporaryStore()
        try await temp.store.write([["_id": "a", "kind": "x", "n": 1], ["_id": "b", "kind": "y", "n": 2]])
        let queue = DispatchQueue(label: "view-callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "view-callbacks")
        let calls = Mutex(0)
        let query = try ViewQuery.parameters(("group", "true"))

        let (answer, onQueue) = await withCheckedContinuation { continuation in
            temp.store.queryView(Self.byKind, query: query, callbackQueue: queue) { result in
                calls.withLock { $0 += 1 }
                continuation.resume(returning: (result, DispatchQueue.getSpecific(key: key)))
            }
        }
        #expect(onQueue == "view-callbacks")
        let expected = try await temp.store.queryView(Self.byKind, query: query)
        #expect(try answer.get() == expected)

        // A JavaScript view on a store without an engine: the async API's error, delivered the same way.
        try await temp.store.put(["_id": "_design/js", "views": ["v": ["map": "function(doc) { emit(1, 1); }"]]])
        let (failure, failureOnQueue) = await withCheckedContinuation { continuation in
            temp.store.queryView(designDocument: "js", view: "v", callbackQueue: queue) { result in
                calls.withLock { $0 += 1 }
                continuation.resume(returning: (result, DispatchQueue.getSpecific(key: key)))
            }
        }
        #expect(failureOnQueue == "view-callbacks")
        guard case .failure(let error) = failure else { Issue.record("expected a failure, got \(failure)"); return }
        #expect(error.code == .notImplemented)
        queue.sync {}
        #expect(calls.withLock { $0 } == 2)
    }

    @Test func aJavaScriptViewWithoutAnEngineIsNotImplemented() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "_design/js", "views": ["v": ["map": "function(doc) { emit(1, 1); }"]]])
        let error = await #expect(throws: CloudantError.self) { try await temp.store.queryView(designDocument: "js", view: "v") }
        #expect(error?.code == .notImplemented)
    }
}
