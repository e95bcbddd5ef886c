import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Old tombstones are purged after a retention window, never ahead of a replication that has not read them.
@Suite("Tombstone purge")
struct TombstonePurgeTests {
    private static func date(_ text: String) -> Date { ISO8601Timestamp.date(from: text) ?? .distantPast }
    private static let day = Duration.seconds(86_400)

    @Test func tombstonesOlderThanTheRetentionArePurgedAndYoungerOnesStay() async throws {
        let clock = ManualClock(Self.date("2026-11-01T00:00:00Z"))
        let temp = try TemporaryStore(options: StoreOptions(now: { clock.now }))
        let store = temp.store
        let old = try await store.put(["_id": "old"])
        try await store.delete(id: "old", rev: old.rev)
        clock.set(Self.date("2026-11-20T00:00:00Z"))
        let recent = try await store.put(["_id": "recent"])
        try await store.delete(id: "recent", rev: recent.rev)
        try await store.put(["_id": "live"])
        let before = try await store.info()

        clock.set(Self.date("2026-11-26T00:00:00Z"))
        #expect(try await store.purgeTombstones(olderThan: Self.day * 10) == ["old"])
        let after = try await store.info()
        #expect(after.deletedDocumentCount == 1 && after.documentCount == 1)
        #expect(after.purgeSeq == before.purgeSeq + 1)
        #expect(try await store.changes().results.map(\.id) == ["recent", "live"])
        // Nothing more is due; a second run purges nothing.
        #expect(try await store.purgeTombstones(olderThan: Self.day * 10).isEmpty)
        #expect(try await store.purgeTombstones(olderThan: .zero) == ["recent"])
    }

    @Test func aTombstoneARecordedReplicationHasNotReadStays() async throws {
        let clock = ManualClock(Self.date("2026-11-01T00:00:00Z"))
        let temp = try TemporaryStore(options: StoreOptions(now: { clock.now }))
        let store = temp.store
        let a = try await store.put(["_id": "a"])
        try await store.delete(id: "a", rev: a.rev)                 // seq 2
        try await store.putLocal(id: "_local/peer", body: ["session_id": "s", "source_last_seq": 2])
        let b = try await store.put(["_id": "b"])
        try await store.delete(id: "b", rev: b.rev)                 // seq 4: the peer has not read it
        clock.set(Self.date("2026-12-01T00:00:00Z"))
        #expect(try await store.purgeTombstones(olderThan: Self.day) == ["a"])
        // CouchDB 2+ sequences ("N-opaque") count by their number; the peer moves on and "b" can go.
        try await store.putLocal(id: "_local/peer", body: ["session_id": "s", "source_last_seq": "4-g1AAAA"], rev: "0-1")
        #expect(try await store.purgeTombstones(olderThan: Self.day) == ["b"])
    }

    @Test func ignoringCheckpointsPurgesEveryOldTombstone() async throws {
        let clock = ManualClock(Self.date("2026-11-01T00:00:00Z"))
        let temp = try TemporaryStore(options: StoreOptions(now: { clock.now }))
        let a = try await temp.store.put(["_id": "a"])
        try await temp.store.delete(id: "a", rev: a.rev)
        try await temp.store.putLocal(id: "_local/stalled", body: ["source_last_seq": 0])
        clock.set(Self.date("2026-12-01T00:00:00Z"))
        #expect(try await temp.store.purgeTombstones(olderThan: Self.day).isEmpty)
        #expect(try await temp.store.purgeTombstones(olderThan: Self.day, respectingCheckpoints: false) == ["a"])
    }

    @Test func aRecreatedDocumentIsNotATombstoneAnyMore() async throws {
        let clock = ManualClock(Self.date("2026-11-01T00:00:00Z"))
        let temp = try TemporaryStore(options: StoreOptions(now: { clock.now }))
        let a = try await temp.store.put(["_id": "a"])
        try await temp.store.delete(id: "a", rev: a.rev)
        try await temp.store.put(["_id": "a", "back": true])
        clock.set(Self.date("2026-12-01T00:00:00Z"))
        #expect(try await temp.store.purgeTombstones(olderThan: .zero).isEmpty)
        #expect(try await temp.store.document(id: "a")["back"] == true)
    }
}
