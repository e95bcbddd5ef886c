import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// A store lists the view index update it runs, as CouchDB's `/_active_tasks` lists an `indexer`: what it
/// has mapped of the documents changed since the index's sequence. Each test reads the list from inside the
/// map closure, where the update certainly runs.
@Suite("View index updates listed while they run")
struct ViewIndexTaskTests {
    static func numbered(_ range: Range<Int>) -> [JSONValue] {
        range.map { ["_id": .string(String(format: "doc-%05d", $0)), "n": .number(JSONNumber($0))] }
    }

    /// A Swift view that records the store's list when it maps `watched`.
    static func view(_ name: String, watching watched: String, in store: DocumentStore, into seen: SeenTasks) -> SwiftView {
        SwiftView(name: name, version: 1) { document, emit in
            if document.id == watched { seen.tasks.withLock { $0 = store.activeViewIndexTasks } }
            emit(document["n"] ?? .null, .null)
        }
    }

    @Test func aFirstBuildIsListedWithTheDocumentsItHasMappedOfAllItMaps() async throws {
        let temp = try TemporaryStore()
        try await temp.store.write(Self.numbered(0..<2500))
        let seen = SeenTasks()
        let view = Self.view("listed-while-building", watching: "doc-02000", in: temp.store, into: seen)
        #expect(temp.store.activeViewIndexTasks.isEmpty)
        _ = try await temp.store.queryView(view, query: .parameters(("limit", "1")))

        let task = try #require(seen.tasks.withLock { $0 }?.first)
        #expect(seen.tasks.withLock { $0 }?.count == 1)
        #expect(task.designDocument == "listed-while-building")
        #expect(task.totalChanges == 2500)
        // Counted a batch of 1,000 at a time once mapped: doc-02000 opens the third batch.
        #expect(task.changesDone == 2000)
        #expect(task.progress == 80)
        #expect(task.startedOn <= task.updatedOn)
        #expect(temp.store.activeViewIndexTasks.isEmpty, "the update ended")
    }

    @Test func anIncrementalUpdateCountsOnlyTheDocumentsChangedSinceTheIndexsSequence() async throws {
        let temp = try TemporaryStore()
        try await temp.store.write(Self.numbered(0..<2000))
        let seen = SeenTasks()
        let view = Self.view("listed-while-updating", watching: "doc-03500", in: temp.store, into: seen)
        _ = try await temp.store.queryView(view, query: .parameters(("limit", "1")))
        #expect(seen.tasks.withLock { $0 } == nil, "the first build never met doc-03500")

        try await temp.store.write(Self.numbered(2000..<3800))
        _ = try await temp.store.queryView(view, query: .parameters(("limit", "1")))
        let task = try #require(seen.tasks.withLock { $0 }?.first)
        #expect(task.totalChanges == 1800)
        #expect(task.changesDone == 1000)
        #expect(task.progress == 55)
        #expect(temp.store.activeViewIndexTasks.isEmpty)
    }

    @Test func aDesignDocumentsUpdateIsListedUnderItsID() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "_design/stats", "views": ["by_n": ["map": "function (doc) { emit(doc.n, null); }"]]])
        let (_, spec) = try await temp.store.designViewIndex("stats")
        #expect(spec.taskName == "_design/stats")
    }

    @Test func progressIsRoundedDownAndNeverPastAHundred() {
        let now = Date()
        func progress(_ done: Int, of total: Int) -> Int {
            ViewIndexTask(designDocument: "_design/x", changesDone: done, totalChanges: total, startedOn: now, updatedOn: now).progress
        }
        #expect(progress(0, of: 0) == 0)
        #expect(progress(2, of: 3) == 66)
        #expect(progress(5, of: 3) == 100)
    }
}

/// What a map closure saw of the store's list of running updates.
final class SeenTasks: Sendable {
    let tasks = Mutex<[ViewIndexTask]?>(nil)
}
