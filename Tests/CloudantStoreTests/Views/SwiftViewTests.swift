import CloudantCore
import CloudantOnly
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
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

    /// A first build reads documents from inside SQLite's sort (``ViewBuildRows``): a document it cannot read
    /// fails the build with the store's own error, and the index keeps no rows of the documents before it.
    @Test func aDamagedBodyFailsAFirstBuildWithItsOwnErrorAndLeavesTheIndexEmpty() async throws {
        let temp = try TemporaryStore()
        // Three batches of the build's mapper; the damaged document is in the second.
        try await temp.store.write((0..<2500).map { ["_id": .string(String(format: "doc-%05d", $0)), "kind": "x", "n": .number(JSONNumber($0))] })
        let file = try DatabaseQueue(path: temp.store.fileURL.path)
        let original = try await file.write { db in
            let body = try #require(try Data.fetchOne(db, sql: "SELECT body FROM documents WHERE id = 'doc-01500'"))
            // zstd's magic number, then bytes no frame has.
            try db.execute(sql: "UPDATE documents SET body = X'28B52FFD00FFFFFFFFFFFF' WHERE id = 'doc-01500'")
            return body
        }
        let error = await #expect(throws: CloudantError.self) { try await temp.store.updateViewIndex(Self.byKind) }
        #expect(error?.code == .storeUnreadable)
        let stored = try await file.read { db in
            try String.fetchAll(db, sql: "SELECT table_name FROM view_indexes").map { table in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1
            }
        }
        #expect(stored == [0])
        try await file.write { db in try db.execute(sql: "UPDATE documents SET body = ? WHERE id = 'doc-01500'", arguments: [original]) }
        let rows = try await temp.store.queryView(Self.byKind, query: .parameters(("reduce", "false")))
        #expect(rows.totalRows == 2500 && rows.ids.first == "doc-00000" && rows.ids.last == "doc-02499")
    }

    /// A purge that commits while a first build maps its snapshot: the build's rows of the purged document
    /// are dropped before they are stored, and the view's row count is that of the rows stored.
    @Test func aDocumentPurgedWhileAFirstBuildMapsLeavesNoRowsAndTheCountAgrees() async throws {
        let temp = try TemporaryStore()
        let revs = try await temp.store.write((0..<1500).map { ["_id": .string(String(format: "doc-%05d", $0)), "kind": "x"] })
        let purgedRev = try #require(revs["doc-00003"])
        let store = temp.store
        let purged = PurgeFlag()
        // The closure runs on the build's thread, inside its read snapshot: on the second batch's first document
        // it waits for a purge of a document the first batch mapped.
        let view = SwiftView(name: "purged-while-building", version: 1, reduce: .builtIn(.count)) { document, emit in
            if document.id == "doc-01000", !purged.done.withLock({ $0 }) {
                let done = DispatchSemaphore(value: 0)
                Task {
                    _ = try? await store.purge(["doc-00003": [purgedRev]])
                    purged.done.withLock { $0 = true }
                    done.signal()
                }
                done.wait()
            }
            emit(document["kind"] ?? .null, .null)
        }
        let rows = try await store.queryView(view, query: .parameters(("reduce", "false")))
        #expect(purged.done.withLock { $0 })
        #expect(rows.rows.count == 1499 && !rows.ids.contains("doc-00003"))
        #expect(rows.totalRows == 1499)
        let count = try await store.queryView(view, query: .parameters(("update", "false")))
        #expect(count.rows.first?.value == 1499)
    }

    /// A first build copies its rows into a table beside the index's, indexes them by document and swaps the
    /// table in, each in a transaction of its own. A build killed between them leaves that table behind and
    /// the index empty, at sequence 0: the next build drops the leftover and stores every row once.
    @Test func aFirstBuildInterruptedWhileStoringIsBuiltAgainFromNothing() async throws {
        let temp = try TemporaryStore()
        try await temp.store.write((0..<300).map { ["_id": .string(String(format: "doc-%05d", $0)), "kind": .string("k\($0 % 3)")] })
        let built = try await temp.store.queryView(Self.byKind, query: .parameters(("group", "true")))
        #expect(built.values == [100, 100, 100])
        // What an interrupted build leaves: the index at sequence 0 with no rows and no index by document,
        // and beside it a table holding some of the rows (here, rows no document emits).
        let file = try DatabaseQueue(path: temp.store.fileURL.path)
        try await file.write { db in
            let table = try #require(try String.fetchOne(db, sql: "SELECT table_name FROM view_indexes"))
            try db.execute(sql: "UPDATE view_indexes SET update_seq = 0")
            try db.execute(sql: "DELETE FROM view_states WHERE table_name = ?", arguments: [table])
            try db.execute(sql: "CREATE TABLE \(table)_building AS SELECT * FROM \(table) LIMIT 50")
            try db.execute(sql: "UPDATE \(table)_building SET doc_id = 'ghost-' || doc_id")
            try db.execute(sql: "DELETE FROM \(table); DROP INDEX \(table)_by_doc")
            try db.execute(sql: "DELETE FROM \(table)_blocks")
        }
        let rows = try await temp.store.queryView(Self.byKind, query: .parameters(("reduce", "false")))
        #expect(rows.rows.count == 300 && rows.totalRows == 300 && !rows.ids.contains { $0?.hasPrefix("ghost-") == true })
        #expect(try await temp.store.queryView(Self.byKind, query: .parameters(("group", "true"))).values == [100, 100, 100])
        let leftovers = try await file.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE '%_building%'")
        }
        #expect(leftovers.isEmpty)
        // The index by document is back: a later edit replaces the document's row.
        let current = try await temp.store.document(id: "doc-00000")
        try await temp.store.put(["_id": "doc-00000", "_rev": current["_rev"] ?? .null, "kind": "k1"])
        #expect(try await temp.store.queryView(Self.byKind, query: .parameters(("group", "true"))).values == [99, 101, 100])
    }
    /// A first build (every document mapped in one pass, its rows encoded into batches and handed to SQLite in
    /// place) stores the same rows, in the same order, as the same view kept one change at a time.
    @Test func aFirstBuildStoresTheRowsAnIncrementalUpdateWould() async throws {
        let view = SwiftView(name: "shapes", version: 1) { document, emit in
            guard case .number(let n)? = document["n"], let value = n.int64Value else { return }
            switch value % 4 {
            case 0: return
            case 1: emit(document["label"] ?? .null, .string(document.id))
            case 2:
                // Several rows, two with one key: numbered in value order.
                emit(.array([.number(n), "dup"]), .number(JSONNumber(value * 2)))
                emit(.array([.number(n), "dup"]), .number(JSONNumber(value)))
                emit(.object(["n": .number(n)]), document["label"] ?? .null)
            default: emit(.number(n), document["big"] ?? .null)
            }
        }
        let documents: [JSONValue] = (0..<3000).map { index in
            var document: JSONObject = [
                "_id": .string("dóc-\(index)-✓"), "n": .number(JSONNumber(index)), "label": .string("l\(index % 7)"),
            ]
            // Values far larger than a batch's first buffer, so it grows while rows point into it.
            if index % 500 == 3 { document["big"] = .string(String(repeating: "x", count: 100_000)) }
            return .object(document)
        }
        let built = try TemporaryStore()
        for start in stride(from: 0, to: documents.count, by: 500) { _ = try await built.store.bulkDocs(Array(documents[start..<(start + 500)])) }
        let kept = try TemporaryStore()
        #expect(try await kept.store.queryView(view).rows.isEmpty)
        for start in stride(from: 0, to: documents.count, by: 500) {
            _ = try await kept.store.bulkDocs(Array(documents[start..<(start + 500)]))
            _ = try await kept.store.queryView(view, query: .parameters(("limit", "1")))
        }
        let first = try await built.store.queryView(view).rows
        let incremental = try await kept.store.queryView(view).rows
        #expect(first.count == 750 + 3 * 750 + 750 && first.count == incremental.count)
        #expect(first == incremental)
    }

    /// A first build's rows, far more than one batch of documents emits and than SQLite's sorter holds in
    /// memory, are each stored once, in key order, across the batches' and the sorter's runs' edges.
    @Test func aFirstBuildStoresEveryRowOnceInKeyOrder() async throws {
        let temp = try TemporaryStore()
        let perDocument = 250
        try await temp.store.write((0..<1000).map { ["_id": .string(String(format: "doc-%05d", $0)), "n": .number(JSONNumber($0))] })
        let view = SwiftView(name: "many-rows", version: 1, reduce: .builtIn(.count)) { document, emit in
            guard case .number(let n)? = document["n"] else { return }
            for row in 0..<perDocument { emit(.array([.number(JSONNumber(row)), .number(n)]), .null) }
        }
        let total = 1000 * perDocument
        let rows = try await temp.store.queryView(view, query: .parameters(("reduce", "false")))
        #expect(rows.rows.count == total && rows.totalRows == total)
        let keys = rows.rows.map { row -> [Int] in (row.key.arrayValue ?? []).compactMap { $0.numberValue?.int64Value }.map(Int.init) }
        #expect(keys == (0..<perDocument).flatMap { row in (0..<1000).map { [row, $0] } })
        let counted = try await temp.store.queryView(view, query: .parameters(("group_level", "1")))
        #expect(counted.values == Array(repeating: 1000, count: perDocument))
    }
}

/// Whether the purge a map closure waited for has committed.
private final class PurgeFlag: Sendable {
    let done = Mutex(false)
}
