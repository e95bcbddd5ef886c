import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

private struct Pulse: CloudantEntity, Hashable {
    var id: String
    var bpm: Int
    var revId: String?
}

private func pulseRegistry() throws -> EntityRegistry {
    var registry = EntityRegistry()
    try registry.register(EntityKind(Pulse.self))
    return registry
}

/// The body the entity API stores for a pulse (its members plus the kind).
private func pulseBody(_ id: String, bpm: Int) -> JSONObject {
    ["bpm": .number(JSONNumber(bpm)), "id": .string(id), "entityType": "Pulse", "entitySchemaVersion": 1]
}

private func pulses(_ range: Range<Int>) throws -> [NewDocument] {
    try range.map { try NewDocument(id: String(format: "pulse-%03d", $0), body: pulseBody(String(format: "pulse-%03d", $0), bpm: 60 + $0)) }
}

@Suite("Inserting documents known to be new (the import write path)")
struct InsertNewTests {
    @Test func insertedDocumentsReadBackThroughTheTypedAPIWithTheRevisionPutWouldMint() async throws {
        let temp = try TemporaryStore(registry: pulseRegistry())
        let outcome = try await temp.store.insertNew(try pulses(0..<5))
        #expect(outcome == NewDocumentsOutcome(written: 5, alreadyStored: []))
        let read = try await temp.store.get(Pulse.self).sorted { $0.id < $1.id }
        #expect(read.map(\.bpm) == [60, 61, 62, 63, 64])
        // The body as the import stores it (members sorted by name) written by the general path gets the same
        // first revision: revisions hash members in order, as CouchDB's do.
        let general = try TemporaryStore(registry: pulseRegistry())
        let body = pulseBody("pulse-000", bpm: 60)
        var document = JSONObject(body.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        document["_id"] = "pulse-000"
        let put = try await general.store.put(document)
        #expect(read.first?.revId == put.rev)
        #expect(try await temp.store.document(id: "pulse-000").rev == put.rev)
    }

    @Test func theChangesFeedAndDocumentCountsIncludeInsertedDocumentsAfterEarlierWrites() async throws {
        let temp = try TemporaryStore(registry: pulseRegistry())
        try await temp.store.put(["_id": "before", "x": 1])
        _ = try await temp.store.insertNew(try pulses(0..<3))
        try await temp.store.put(["_id": "after", "x": 2])
        let feed = try await temp.store.changes()
        #expect(feed.results.map(\.id) == ["before", "pulse-000", "pulse-001", "pulse-002", "after"])
        #expect(feed.results.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(feed.results[1].changes.first?.hasPrefix("1-") == true)
        let info = try await temp.store.info()
        #expect(info.documentCount == 5 && info.updateSeq == 5)
    }

    @Test func mangoIndexesAnswerQueriesOverInsertedDocuments() async throws {
        let temp = try TemporaryStore(registry: pulseRegistry())
        let index = try IndexDefinition(indexRequest: JSONValue(parsing: #"{"index":{"fields":["bpm"]},"name":"by-bpm"}"#))
        _ = try await temp.store.createIndex(index)
        _ = try await temp.store.insertNew(try pulses(0..<10))
        let request = try FindRequest(JSONValue(parsing: #"{"selector":{"bpm":{"$gte":67}},"sort":[{"bpm":"asc"}]}"#))
        let plan = try await temp.store.explain(request)
        #expect(plan["index"]?["name"] == "by-bpm")
        let found = try await temp.store.find(request)
        #expect(found.docs.compactMap { $0["_id"]?.stringValue } == ["pulse-007", "pulse-008", "pulse-009"])
    }

    @Test func insertingTheSameDocumentsAgainWritesNothingAndKeepsDeletionsDeleted() async throws {
        let temp = try TemporaryStore(registry: pulseRegistry())
        _ = try await temp.store.insertNew(try pulses(0..<4))
        let deleted = try await temp.store.document(id: "pulse-001")
        try await temp.store.delete(id: "pulse-001", rev: deleted.rev ?? "")
        let before = try await temp.store.info()
        let again = try await temp.store.insertNew(try pulses(0..<6))
        #expect(again.written == 2)
        #expect(again.alreadyStored == ["pulse-000", "pulse-001", "pulse-002", "pulse-003"])
        let after = try await temp.store.info()
        #expect(after.updateSeq == before.updateSeq + 2)
        #expect(after.documentCount == 5 && after.deletedDocumentCount == 1)
        await #expect(throws: CloudantError.self) { try await temp.store.document(id: "pulse-001") }
    }

    @Test func committedBatchesSurviveAReopenAndAFailedBatchLeavesNoTrace() async throws {
        let temp = try TemporaryStore(registry: pulseRegistry())
        _ = try await temp.store.insertNew(try pulses(0..<3))
        // A batch whose transaction cannot commit: the file is opened read-only, so the write fails whole.
        let readOnly = try DocumentStore.open(
            name: temp.store.name, fileURL: temp.store.fileURL, options: StoreOptions(readOnly: true))
        await #expect(throws: CloudantError.self) { try await readOnly.insertNew(try pulses(3..<6)) }
        let reopened = try temp.reopen(registry: pulseRegistry())
        #expect(try await reopened.get(Pulse.self).map(\.id).sorted() == ["pulse-000", "pulse-001", "pulse-002"])
        #expect(try await reopened.info().updateSeq == 3)
        // The failed batch goes through when written again.
        #expect(try await reopened.insertNew(try pulses(0..<6)).written == 3)
    }

    @Test func reservedIdsAndUnderscoreMembersAreRefused() throws {
        #expect(throws: CloudantError.self) { try NewDocument(id: "_design/x", body: [:]) }
        #expect(throws: CloudantError.self) { try NewDocument(id: "_local/x", body: [:]) }
        #expect(throws: CloudantError.self) { try NewDocument(id: "", body: [:]) }
        #expect(throws: CloudantError.self) { try NewDocument(id: "a", body: ["_rev": "1-x"]) }
    }
}
