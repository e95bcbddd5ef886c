import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Changes feed")
struct ChangesFeedTests {
    @Test func eachDocumentAppearsOnceAtItsLatestSequence() async throws {
        let temp = try TemporaryStore()
        let a = try await temp.store.put(["_id": "a"])
        try await temp.store.put(["_id": "b"])
        let a2 = try await temp.store.put(["_id": "a", "_rev": .string(a.rev), "v": 2])
        let feed = try await temp.store.changes()
        #expect(feed.results.map(\.id) == ["b", "a"])
        #expect(feed.results.map(\.seq) == [2, 3])
        #expect(feed.results.last?.changes == [a2.rev])
        #expect(feed.lastSeq == 3)
        #expect(feed.pending == 0)
    }

    @Test func sinceAndLimitPageThroughTheFeed() async throws {
        let temp = try TemporaryStore()
        for index in 0..<5 { try await temp.store.put(["_id": .string("d\(index)")]) }
        let first = try await temp.store.changes(ChangesOptions(limit: 2))
        #expect(first.results.map(\.id) == ["d0", "d1"])
        #expect(first.pending == 3)
        let second = try await temp.store.changes(ChangesOptions(since: first.lastSeq, limit: 2))
        #expect(second.results.map(\.id) == ["d2", "d3"])
        let descending = try await temp.store.changes(ChangesOptions(limit: 1, descending: true))
        #expect(descending.results.map(\.id) == ["d4"])
    }

    /// CouchDB's `pending` (`fabric_rpc:changes`): changes after `since` not yet looked at. `doc_ids` looks
    /// only at those documents, so the others stay pending; a read to the end gives the database's `last_seq`.
    @Test func pendingCountsWhatTheFeedHasNotLookedAtAsCouchDBDoes() async throws {
        let temp = try TemporaryStore()
        for id in ["a", "b", "c", "d"] { try await temp.store.put(["_id": .string(id), "t": .string(id == "b" ? "x" : "y")]) }
        let byID = try await temp.store.changes(ChangesOptions(documentIDs: ["a", "b"]))
        #expect(byID.results.map(\.id) == ["a", "b"])
        #expect(byID.pending == 2)
        #expect(byID.lastSeq == 4)
        #expect(!byID.hasMore)
        let none = try await temp.store.changes(ChangesOptions(documentIDs: []))
        #expect(none.pending == 4)
        let descending = try await temp.store.changes(ChangesOptions(limit: 2, descending: true))
        #expect(descending.pending == 2)
        // A page that ends on a change the filter refuses has looked at it: it is not pending.
        let filtered = try await temp.store.changes(ChangesOptions(limit: 1, filter: { $0["t"] == "y" }))
        #expect(filtered.results.map(\.id) == ["a"])
        #expect(filtered.pending == 2)
        #expect(filtered.hasMore)
    }

    /// Pages of a filtered feed go on from where the last page stopped, never from the end of the database.
    @Test func pagingAFilteredFeedReachesEveryMatchingChange() async throws {
        let temp = try TemporaryStore()
        for index in 0..<9 { try await temp.store.put(["_id": .string("d\(index)"), "even": .bool(index % 2 == 0)]) }
        for options in [
            ChangesOptions(limit: 1, documentIDs: ["d1", "d4", "d7"]), ChangesOptions(limit: 2, filter: { $0["even"] == true }),
        ] {
            var seen: [String] = []
            var page = options
            while true {
                let result = try await temp.store.changes(page)
                seen += result.results.map(\.id)
                page.since = result.lastSeq
                if !result.hasMore { break }
            }
            #expect(seen == (options.documentIDs ?? ["d0", "d2", "d4", "d6", "d8"]))
        }
    }

    @Test func allDocsStyleListsEveryLeafWinnerFirstAndDeletedRefersToTheWinner() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs(
            [
                ["_id": "d", "_rev": .string(rev(1, "b"))],
                ["_id": "d", "_rev": .string(rev(1, "c")), "_deleted": true],
            ], newEdits: false)
        let feed = try await temp.store.changes(ChangesOptions(style: .allDocs))
        #expect(feed.results.first?.changes == [rev(1, "b"), rev(1, "c")])
        #expect(feed.results.first?.deleted == false)
        #expect(feed.results.first?.json["deleted"] == nil)
    }

    @Test func includeDocsDocIdFiltersAndPredicateFiltersApply() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a", "type": "note"])
        try await temp.store.put(["_id": "b", "type": "task"])
        try await temp.store.put(["_id": "c", "type": "note"])
        let byID = try await temp.store.changes(ChangesOptions(includeDocs: true, documentIDs: ["c", "a"]))
        #expect(byID.results.map(\.id) == ["a", "c"])
        #expect(byID.results.first?.doc?["type"] == "note")
        let filtered = try await temp.store.changes(ChangesOptions(filter: { $0["type"] == "task" }))
        #expect(filtered.results.map(\.id) == ["b"])
        #expect(filtered.results.first?.doc == nil)
    }

    @Test func aMangoSelectorFiltersTheFeed() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a", "type": "note", "n": 1])
        try await temp.store.put(["_id": "b", "type": "task", "n": 2])
        try await temp.store.put(["_id": "c", "type": "note", "n": 3])
        let selector = try MangoSelector(["type": "note", "n": ["$gt": 1]])
        let feed = try await temp.store.changes(ChangesOptions(selector: selector))
        #expect(feed.results.map(\.id) == ["c"])
    }

    @Test func liveChangesReplayTheBacklogThenDeliverNewWritesInOrder() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "before"])
        let stream = temp.store.liveChanges()
        let reader = Task {
            var ids: [String] = []
            for try await change in stream {
                ids.append(change.id)
                if ids.count == 4 { break }
            }
            return ids
        }
        try await temp.store.put(["_id": "one"])
        _ = try await temp.store.bulkDocs([["_id": "two"], ["_id": "three"]])
        let ids = try await reader.value
        #expect(ids == ["before", "one", "two", "three"])
    }

    @Test func sequencesStayMonotonicAcrossReopening() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a"])
        let reopened = try temp.reopen()
        try await reopened.put(["_id": "b"])
        #expect(try await reopened.changes().results.map(\.seq) == [1, 2])
    }
}
