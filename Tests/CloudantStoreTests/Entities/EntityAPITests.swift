import CloudantCore
import CloudantOnly
import CloudantStore
import CloudantTestSupport
import Dispatch
import Foundation
import Testing

struct Note: CloudantEntity, Hashable {
    var id: String
    var text: String
    var createdAt: Date
    var revId: String?
}

struct Reading: CloudantEntity, Hashable {
    var id: UUID
    var value: Double
    var revId: String?
}

private func registry(noteSchemaVersion: Int = 1, upgrade: @escaping EntityUpgrade = { _, _ in }) throws -> EntityRegistry {
    var registry = EntityRegistry()
    try registry.register(
        EntityKind(
            Note.self, schemaVersion: noteSchemaVersion,
            validate: { note in
                if note.text.isEmpty {
                    throw CloudantError(.invalidInput, "A note needs text.", context: .init(field: "text"))
                }
            }, upgrade: upgrade))
    try registry.register(EntityKind(Reading.self))
    return registry
}

@Suite("Typed entity API")
struct EntityAPITests {
    let date = Date(timeIntervalSince1970: 1_763_700_000.123)

    @Test func addStoresEntitiesWithTheirKindAndReturnsTheirRevisions() async throws {
        let temp = try TemporaryStore(registry: registry())
        let saved = try await temp.store.add([Note(id: "n1", text: "Call", createdAt: date), Note(id: "n2", text: "Walk", createdAt: date)])
        #expect(saved.allSatisfy { $0.revId?.hasPrefix("1-") == true })
        let doc = try await temp.store.document(id: "n1")
        #expect(doc["entityType"] == "Note")
        #expect(doc["revId"] == nil)
        #expect(try await temp.store.get(Note.self) == saved)
    }

    /// CouchDB's `max_partition_size` bounds every interactive write, entity writes included: a full partition
    /// refuses a new entity and the others take it.
    @Test func aFullPartitionRefusesEntityWritesThatGrowIt() async throws {
        let temp = try TemporaryStore(registry: registry())
        try await temp.store.makePartitioned()
        let text = String(repeating: "x", count: 1_024)
        try await temp.store.add((1...3).map { Note(id: "p:\($0)", text: text, createdAt: date) })
        temp.store.setMaxPartitionSize(2_048)
        await #expect { try await temp.store.add([Note(id: "p:new", text: "more", createdAt: date)]) } throws: { error in
            (error as? CloudantError)?.code == .partitionOverflow
        }
        try await temp.store.add([Note(id: "q:new", text: "more", createdAt: date)])
        #expect(try await temp.store.get(Note.self).map(\.id).sorted() == ["p:1", "p:2", "p:3", "q:new"])
    }

    @Test func subSecondDatesSurviveTheRoundTrip() async throws {
        let temp = try TemporaryStore(registry: registry())
        try await temp.store.add([Note(id: "n1", text: "x", createdAt: date)])
        let read = try await temp.store.get(Note.self, id: "n1")
        #expect(abs(read.createdAt.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001)
    }

    @Test func updateNeedsTheCurrentRevisionAndAStaleOneIsAConflict() async throws {
        let temp = try TemporaryStore(registry: registry())
        var note = try await temp.store.add([Note(id: "n1", text: "a", createdAt: date)])[0]
        let stale = note
        note.text = "b"
        note = try await temp.store.update([note])[0]
        #expect(note.revId?.hasPrefix("2-") == true)
        let error = await #expect(throws: CloudantError.self) { try await temp.store.update([stale]) }
        #expect(error?.code == .conflict)
        #expect(error?.context.documentID == "n1")
        var unread = note
        unread.revId = nil
        let missing = await #expect(throws: CloudantError.self) { try await temp.store.update([unread]) }
        #expect(missing?.code == .conflict)
    }

    @Test func aFailingItemRollsBackTheWholeBatchAndIsNamed() async throws {
        let temp = try TemporaryStore(registry: registry())
        try await temp.store.add([Note(id: "taken", text: "x", createdAt: date)])
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.add([
                Note(id: "fresh", text: "x", createdAt: date), Note(id: "taken", text: "y", createdAt: date),
            ])
        }
        #expect(error?.code == .conflict)
        #expect(error?.context.itemIndex == 1)
        #expect(error?.context.documentID == "taken")
        #expect(error?.context.kind == "Note")
        #expect(try await temp.store.get(Note.self).map(\.id) == ["taken"])
    }

    @Test func validationRejectsAnItemBeforeAnythingIsWritten() async throws {
        let temp = try TemporaryStore(registry: registry())
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.add([Note(id: "a", text: "ok", createdAt: date), Note(id: "b", text: "", createdAt: date)])
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.itemIndex == 1)
        #expect(try await temp.store.info().updateSeq == 0)
    }

    @Test func deleteWritesTombstonesAndGetNoLongerFindsThem() async throws {
        let temp = try TemporaryStore(registry: registry())
        let saved = try await temp.store.add([Note(id: "n1", text: "a", createdAt: date)])
        let deleted = try await temp.store.delete(saved)
        #expect(deleted[0].revId?.hasPrefix("2-") == true)
        #expect(try await temp.store.get(Note.self).isEmpty)
        let error = await #expect(throws: CloudantError.self) { try await temp.store.get(Note.self, id: "n1") }
        #expect(error?.code == .notFound)
    }

    @Test func oneStoreHoldsManyKindsAndGetByIdsKeepsOrder() async throws {
        let temp = try TemporaryStore(registry: registry())
        let readings = try await temp.store.add([Reading(id: UUID(), value: 1.5), Reading(id: UUID(), value: 2.5)])
        try await temp.store.add([Note(id: "n1", text: "a", createdAt: date)])
        #expect(try await temp.store.get(Reading.self).count == 2)
        #expect(try await temp.store.get(Note.self).count == 1)
        let reversed = try await temp.store.get(Reading.self, ids: readings.reversed().map(\.id))
        #expect(reversed.map(\.value) == [2.5, 1.5])
        let wrongKind = await #expect(throws: CloudantError.self) { try await temp.store.get(Note.self, id: readings[0].id.uuidString) }
        #expect(wrongKind?.code == .notFound)
    }

    @Test func anUnregisteredTypeIsATypedError() async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) { try await temp.store.get(Note.self) }
        #expect(error?.code == .unknownEntityType)
    }

    @Test func documentsWrittenByAnOlderSchemaAreUpgradedOnRead() async throws {
        let temp = try TemporaryStore(registry: registry())
        try await temp.store.put(["_id": "old", "entityType": "Note", "entitySchemaVersion": 1, "title": "legacy", "createdAt": "2026-11-21T10:00:00Z"])
        let upgraded = try temp.reopen(registry: registry(noteSchemaVersion: 2) { body, stored in
            if stored < 2, let title = body.removeValue(forKey: "title") { body["text"] = title }
        })
        let note = try await upgraded.get(Note.self, id: "old")
        #expect(note.text == "legacy")
    }

    @Test func aDocumentThatNoLongerDecodesIsATypedErrorNotADroppedItem() async throws {
        let temp = try TemporaryStore(registry: registry())
        try await temp.store.put(["_id": "broken", "entityType": "Note", "text": 5])
        let error = await #expect(throws: CloudantError.self) { try await temp.store.get(Note.self) }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.documentID == "broken")
    }

    @Test func callbacksFireExactlyOnceOnTheGivenQueue() async throws {
        let temp = try TemporaryStore(registry: registry())
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "callbacks")
        try await temp.store.add([Note(id: "taken", text: "x", createdAt: date)])
        let outcome: (Bool, Int) = await withCheckedContinuation { continuation in
            temp.store.add([Note(id: "taken", text: "y", createdAt: date)], callbackQueue: queue) { result in
                let onQueue = DispatchQueue.getSpecific(key: key) == "callbacks"
                if case .failure(let error) = result { continuation.resume(returning: (onQueue, error.context.itemIndex ?? -1)) }
                else { continuation.resume(returning: (onQueue, -2)) }
            }
        }
        #expect(outcome.0)
        #expect(outcome.1 == 0)
    }
}
