import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite("Document expiry")
struct DocumentExpiryTests {
    private static func date(_ text: String) -> Date { ISO8601Timestamp.date(from: text) ?? .distantPast }

    private func expiringStore(at start: String) async throws -> (TemporaryStore, ManualClock) {
        let clock = ManualClock(Self.date(start))
        let temp = try TemporaryStore(options: StoreOptions(now: { clock.now }))
        try await temp.store.setExpiryField("expiresAt")
        return (temp, clock)
    }

    @Test func anExpiredDocumentIsGoneForEveryReaderAtOnceAndPurgedAsCouchDBPurges() async throws {
        let (temp, clock) = try await expiringStore(at: "2026-11-26T09:00:00Z")
        let store = temp.store
        try await store.put(["_id": "a", "expiresAt": "2026-11-26T10:00:00Z"])
        try await store.put(["_id": "b", "expiresAt": "2026-11-26T12:00:00Z"])
        try await store.put(["_id": "c", "note": "never expires"])
        #expect(try await store.allDocs().rows.count == 3)
        let before = try await store.info()

        clock.set(Self.date("2026-11-26T10:00:00Z"))  // expiry is inclusive: at 10:00 "a" is gone
        let missing = await #expect(throws: CloudantError.self) { try await store.document(id: "a") }
        #expect(missing?.code == .notFound)
        let all = try await store.allDocs().rows.compactMap { $0["id"]?.stringValue }
        #expect(all == ["b", "c"])
        let found = try await store.find(try FindRequest(JSONValue(parsing: #"{"selector":{}}"#)))
        #expect(found.docs.compactMap { $0["_id"]?.stringValue } == ["b", "c"])
        // Purged, not deleted: no tombstone, no row in the feed, and purge_seq counts it.
        let changes = try await store.changes()
        #expect(changes.results.map(\.id) == ["b", "c"])
        let after = try await store.info()
        #expect(after.documentCount == 2)
        #expect(after.deletedDocumentCount == 0)
        #expect(after.purgeSeq == before.purgeSeq + 1)
        // The id is free again: a write naming the old revision is a conflict, a new one starts at 1.
        let recreated = try await store.put(["_id": "a", "v": 2])
        #expect(recreated.rev.hasPrefix("1-"))
    }

    @Test func aWriteAfterExpirySeesTheDocumentGone() async throws {
        let (temp, clock) = try await expiringStore(at: "2026-11-26T09:00:00Z")
        let first = try await temp.store.put(["_id": "a", "expiresAt": "2026-11-26T10:00:00Z"])
        clock.set(Self.date("2026-11-26T11:00:00Z"))
        let stale = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "expiresAt": "2027-01-01T00:00:00Z"])
        }
        #expect(stale?.code == .conflict)
    }

    @Test func expiryTimesMayBeSecondsOrTimestampsWithOffsets() async throws {
        let (temp, clock) = try await expiringStore(at: "2026-11-26T09:00:00Z")
        let store = temp.store
        let tenUTC = Self.date("2026-11-26T10:00:00Z").timeIntervalSince1970
        try await store.put(["_id": "seconds", "expiresAt": .number(JSONNumber(tenUTC))])
        try await store.put(["_id": "paris", "expiresAt": "2026-11-26T11:30:00+01:00"])  // 10:30 UTC
        try await store.put(["_id": "text", "expiresAt": "soon"])  // not a time: never expires
        clock.set(Self.date("2026-11-26T10:15:00Z"))
        #expect(try await store.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["paris", "text"])
        clock.set(Self.date("2026-11-26T10:31:00Z"))
        #expect(try await store.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["text"])
    }

    @Test func settingTheFieldCoversDocumentsAlreadyStoredAndPersists() async throws {
        let clock = ManualClock(Self.date("2026-11-26T09:00:00Z"))
        let temp = try TemporaryStore(options: StoreOptions(now: { clock.now }))
        try await temp.store.put(["_id": "old", "ttl": "2026-11-26T10:00:00Z"])
        try await temp.store.setExpiryField("ttl")
        #expect(try await temp.store.expiryField() == "ttl")
        try temp.store.close()
        let reopened = try DocumentStore.open(name: temp.store.name, fileURL: temp.store.fileURL, options: StoreOptions(now: { clock.now }))
        #expect(try await reopened.expiryField() == "ttl")
        clock.set(Self.date("2026-11-26T10:00:01Z"))
        #expect(try await reopened.allDocs().rows.isEmpty)
        try reopened.close()
    }

    @Test func turningExpiryOffKeepsEveryDocument() async throws {
        let (temp, clock) = try await expiringStore(at: "2026-11-26T09:00:00Z")
        try await temp.store.put(["_id": "a", "expiresAt": "2026-11-26T10:00:00Z"])
        try await temp.store.setExpiryField(nil)
        clock.set(Self.date("2026-11-27T00:00:00Z"))
        #expect(try await temp.store.document(id: "a")["expiresAt"] == "2026-11-26T10:00:00Z")
        #expect(try await temp.store.expiryField() == nil)
    }

    @Test func setExpiryWritesTheFieldAsAReplicableRevision() async throws {
        let (temp, clock) = try await expiringStore(at: "2026-11-26T09:00:00Z")
        let first = try await temp.store.put(["_id": "session", "user": "ada"])
        let second = try await temp.store.setExpiry(Self.date("2026-11-26T09:30:00Z"), forDocument: "session")
        #expect(second.rev.hasPrefix("2-") && second.rev != first.rev)
        // An ordinary member: it travels with the revision to any replica.
        let stored = try await temp.store.document(id: "session")
        #expect(stored["expiresAt"] == "2026-11-26T09:30:00.000Z")
        #expect(stored["user"] == "ada")
        clock.set(Self.date("2026-11-26T09:30:00Z"))
        #expect(try await temp.store.purgeExpired() == ["session"])
    }

    @Test func aBadFieldOrNoFieldIsATypedError() async throws {
        let temp = try TemporaryStore()
        for field in ["", "_expires", "a.b", "x y"] {
            let error = await #expect(throws: CloudantError.self) { try await temp.store.setExpiryField(field) }
            #expect(error?.code == .invalidInput)
        }
        try await temp.store.put(["_id": "a"])
        let unset = await #expect(throws: CloudantError.self) { try await temp.store.setExpiry(Date(), forDocument: "a") }
        #expect(unset?.code == .invalidInput)
    }

    @Test func theBackgroundPurgeRemovesExpiredDocumentsWithoutAnyRead() async throws {
        let temp = try TemporaryStore()  // the live clock
        try await temp.store.setExpiryField("expiresAt")
        let soon = ISO8601Timestamp.string(from: Date().addingTimeInterval(0.3)) ?? ""
        try await temp.store.put(["_id": "short-lived", "expiresAt": .string(soon)])
        try await temp.store.put(["_id": "stays"])
        // Look at the file itself (another connection), which triggers nothing in the store.
        var configuration = Configuration()
        configuration.readonly = true
        let file = try DatabaseQueue(path: temp.store.fileURL.path, configuration: configuration)
        var ids: [String] = []
        try? await waitUntil("the expired document purged", checkingEvery: .milliseconds(50)) {
            ids = try await file.read { db in try String.fetchAll(db, sql: "SELECT id FROM documents ORDER BY id") }
            return ids.count <= 1
        }
        #expect(ids == ["stays"])
        try file.close()
    }
}
