import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@testable import CloudantStore

/// The decision that keeps a write cheap for observers it cannot affect: whether a change may alter a page.
@Suite("Live query observer")
struct LiveQueryObserverTests {
    private func observer(_ json: String, page: [JSONObject]) throws -> LiveQueryObserver {
        let observer = LiveQueryObserver(request: try FindRequest(JSONValue(parsing: json)))
        observer.install(page: page)
        return observer
    }

    /// Whether considering `change` wakes the observer.
    private func wakes(_ observer: LiveQueryObserver, _ change: Change, purged: Bool = false) async -> Bool {
        observer.consider([change], purged: purged)
        observer.finish()
        var iterator = observer.wakeUps.makeAsyncIterator()
        return await iterator.next() != nil
    }

    private func change(_ id: String, _ doc: JSONObject?, deleted: Bool = false) -> Change {
        var body = doc
        body?["_id"] = .string(id)
        return Change(seq: 9, id: id, changes: ["1-a"], deleted: deleted, doc: body)
    }

    private let sortedPage: [JSONObject] = [["_id": "a", "t": "r", "v": 1], ["_id": "b", "t": "r", "v": 2]]
    private let sortedQuery = #"{"selector":{"t":"r"},"sort":["v"],"limit":2}"#

    @Test func aChangeToADocumentOnThePageWakes() async throws {
        #expect(await wakes(try observer(sortedQuery, page: sortedPage), change("b", ["t": "gone"])))
        #expect(await wakes(try observer(sortedQuery, page: sortedPage), change("a", nil, deleted: true)))
    }

    @Test func aDocumentThatDoesNotMatchDoesNotWake() async throws {
        #expect(await !wakes(try observer(sortedQuery, page: sortedPage), change("z", ["t": "other", "v": 0])))
    }

    @Test func aDeletedDocumentOffThePageDoesNotWake() async throws {
        #expect(await !wakes(try observer(sortedQuery, page: sortedPage), change("z", ["t": "r"], deleted: true)))
    }

    @Test func aMatchSortingAfterAFullPageDoesNotWakeButOneBeforeItDoes() async throws {
        #expect(await !wakes(try observer(sortedQuery, page: sortedPage), change("z", ["t": "r", "v": 3])))
        #expect(await !wakes(try observer(sortedQuery, page: sortedPage), change("z", ["t": "r"])))  // no sort key
        #expect(await wakes(try observer(sortedQuery, page: sortedPage), change("z", ["t": "r", "v": 0])))
        // A tie on the sort key is broken by id, as the query breaks it.
        #expect(await wakes(try observer(sortedQuery, page: sortedPage), change("a0", ["t": "r", "v": 2])))
        #expect(await !wakes(try observer(sortedQuery, page: sortedPage), change("c", ["t": "r", "v": 2])))
    }

    @Test func aMatchWakesWhenThePageIsNotFullOrUnsorted() async throws {
        let short = try observer(#"{"selector":{"t":"r"},"sort":["v"],"limit":5}"#, page: sortedPage)
        #expect(await wakes(short, change("z", ["t": "r", "v": 99])))
        let unsorted = try observer(#"{"selector":{"t":"r"},"limit":2}"#, page: sortedPage)
        #expect(await wakes(unsorted, change("z", ["t": "r"])))
    }

    @Test func withSkipAnyChangeWakes() async throws {
        let window = try observer(#"{"selector":{"t":"r"},"sort":["v"],"skip":1,"limit":1}"#, page: [sortedPage[1]])
        #expect(await wakes(window, change("a", nil, deleted: true)))
    }

    @Test func aChangeDuringARunAlwaysWakes() async throws {
        let running = try observer(sortedQuery, page: sortedPage)
        running.beginRun()
        #expect(await wakes(running, change("z", ["t": "other"])))
    }

    @Test func aPurgeAlwaysWakes() async throws {
        let observer = try observer(sortedQuery, page: sortedPage)
        observer.consider([], purged: true)
        observer.finish()
        var iterator = observer.wakeUps.makeAsyncIterator()
        #expect(await iterator.next() != nil)
    }

    @Test func designDocumentsWakeOnlyUnsortedQueries() async throws {
        #expect(await !wakes(try observer(sortedQuery, page: sortedPage), change("_design/i", ["language": "query"])))
        let unsorted = try observer(#"{"selector":{"t":"r"},"limit":2}"#, page: sortedPage)
        #expect(await wakes(unsorted, change("_design/i", ["language": "query"])))
    }

    @Test func thePumpRunsOnlyWhileALiveQueryDoes() async throws {
        let temp = try TemporaryStore()
        let live = LiveQueryRecorder(temp.store.observe(try FindRequest(JSONValue(parsing: #"{"selector":{}}"#))))
        try await live.wait { _ in true }
        #expect(temp.store.liveQueries.state == (1, true))
        live.cancel()
        try await waitUntil("the pump stopped", checkingEvery: .milliseconds(5)) {
            temp.store.liveQueries.state == (0, false)
        }
    }
}
