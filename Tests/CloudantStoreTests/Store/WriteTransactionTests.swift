@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// The store's write transaction (cached `BEGIN IMMEDIATE`/`COMMIT`, settings read straight from SQLite):
/// it commits all of a write or none of it, and each transaction sees what another connection committed.
@Suite("Write transactions")
struct WriteTransactionTests {
    private struct Abandoned: Error {}

    @Test("A write that throws after writing leaves nothing, and the next write commits with the next sequence")
    func aFailedWriteRollsBackAndTheNextOneCommits() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.put(["_id": "kept", "n": 1])
        let before = try await store.info().updateSeq

        await #expect(throws: CloudantError.self) {
            try await store.write(.storeUnwritable) { db in
                var writer = try DocumentWriter(db: db, makeDocumentID: { "unused" }, now: { Date() })
                let prepared = PreparedWrite(try IncomingDocument(["_id": "lost", "n": 2]), compression: .couchDB)
                _ = try writer.writeInteractive(prepared)
                throw Abandoned()
            }
        }

        await #expect(throws: CloudantError.self) { try await store.document(id: "lost") }
        #expect(try await store.info().updateSeq == before)
        let written = try await store.put(["_id": "after", "n": 3])
        #expect(written.rev.hasPrefix("1-"))
        let changes = try await store.changes(ChangesOptions(since: before))
        #expect(changes.results.map(\.id) == ["after"])
        #expect(changes.results.map(\.seq) == [before + 1])
    }

    @Test("A write whose SQL fails inside the transaction is rolled back and reported as a store error")
    func aFailingStatementRollsBackTheWholeWrite() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        await #expect(throws: CloudantError.self) {
            try await store.write(.storeUnwritable) { db in
                var writer = try DocumentWriter(db: db, makeDocumentID: { "unused" }, now: { Date() })
                _ = try writer.writeInteractive(PreparedWrite(try IncomingDocument(["_id": "first"]), compression: .couchDB))
                try db.execute(sql: "INSERT INTO no_such_table VALUES (1)")
            }
        }
        await #expect(throws: CloudantError.self) { try await store.document(id: "first") }
        #expect(try await store.info().documentCount == 0)
        _ = try await store.put(["_id": "second"])
        #expect(try await store.info().documentCount == 1)
    }

    @Test("Writes through two connections to one file interleave with distinct, increasing sequences")
    func twoConnectionsShareTheSequence() async throws {
        let temp = try TemporaryStore()
        let first = temp.store
        let second = try temp.reopen()
        for round in 0..<20 {
            _ = try await first.put(["_id": .string("first-\(round)")])
            _ = try await second.put(["_id": .string("second-\(round)")])
        }
        let sequences = try await first.changes().results.map(\.seq)
        #expect(sequences.count == 40)
        #expect(sequences == Array(1...40))
    }

    @Test("A setting another connection changed applies to this connection's next write")
    func settingsChangedElsewhereApplyToTheNextWrite() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        var rev = try await store.put(["_id": "walk", "n": 0]).rev
        let other = try temp.reopen()
        try await other.setRevsLimit(2)
        for n in 1...4 { rev = try await store.put(["_id": "walk", "_rev": .string(rev), "n": .number(JSONNumber(n))]).rev }

        var options = ReadOptions()
        options.revs = true
        let document = try await store.document(id: "walk", options: options)
        #expect(document["_revisions"]?["ids"]?.arrayValue?.count == 2)
        #expect(document["_revisions"]?["start"] == 5)
    }
}
