import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// Readings whose `uuid` is usually their `_id`: an `.identifier` column.
private let readings = ColumnProjection(
    name: "tagged",
    columns: [.init("at", path: "when", type: .date), .init("uuid", type: .identifier), .init("value", type: .real)],
    orderedBy: ["at"])

private func registry(_ projection: ColumnProjection = readings) throws -> EntityRegistry {
    var registry = EntityRegistry()
    try registry.register(EntityKind(TaggedReading.self, name: "Tagged", projections: [projection]))
    return registry
}

private func reading(_ id: String, uuid: String?, day: Int) -> JSONObject {
    var body: JSONObject = [
        "_id": .string(id), "entityType": "Tagged", "when": .string("2024-01-\(day < 10 ? "0" : "")\(day)T00:00:00Z"),
        "value": .number(.double(Double(day))),
    ]
    if let uuid { body["uuid"] = .string(uuid) }
    return body
}

/// `id uuid` of each row, in the projection's order.
private func rows(_ store: DocumentStore, _ conditions: [ProjectionCondition] = []) async throws -> [String] {
    try await store.projectedRows(ProjectionQuery(projection: "tagged", where: conditions)) { row in
        "\(row.documentID) \(row.string(at: 1) ?? "-")"
    }
}

/// The stored `c_uuid` values: the text, `mark` for the empty blob that stands for the id, `null`.
private func storedValues(_ store: DocumentStore) async throws -> [String] {
    let queue = try DatabaseQueue(path: store.fileURL.path)
    defer { try? queue.close() }
    return try await queue.read { db in
        let table = try String.fetchOne(db, sql: "SELECT table_name FROM column_projections WHERE name = 'tagged'") ?? ""
        return try String.fetchAll(
            db,
            sql: "SELECT CASE typeof(c_uuid) WHEN 'blob' THEN 'mark' || length(c_uuid) WHEN 'null' THEN 'null' ELSE c_uuid END "
                + "FROM \(table) ORDER BY c_at")
    }
}

@Suite("Projection identifier columns")
struct IdentifierColumnTests {
    @Test func aValueEqualToTheDocumentIDIsMarkedNotRepeatedAndReadsBackAsTheID() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.bulkDocs([
            reading("a1", uuid: "a1", day: 1), reading("b2", uuid: "other", day: 2), reading("c3", uuid: nil, day: 3),
            reading("12345", uuid: "12345", day: 4), reading("e5", uuid: "", day: 5),
        ].map(JSONValue.object))
        // Only the rows whose uuid is their id hold the mark; others keep their text, or NULL when absent.
        #expect(try await storedValues(temp.store) == ["mark0", "other", "null", "mark0", ""])
        #expect(try await rows(temp.store) == ["a1 a1", "b2 other", "c3 -", "12345 12345", "e5 "])
        let equals = try await temp.store.projectedRows(ProjectionQuery(projection: "tagged")) { row in
            row.string(at: 1, equals: row.documentID)
        }
        #expect(equals == [true, false, false, true, false])
    }

    @Test func conditionsCompareTheTextWhetherStoredOrMarked() async throws {
        let temp = try TemporaryStore(registry: registry())
        _ = try await temp.store.bulkDocs([
            reading("a1", uuid: "a1", day: 1), reading("b2", uuid: "a1", day: 2), reading("c3", uuid: nil, day: 3),
        ].map(JSONValue.object))
        #expect(try await rows(temp.store, [.init("uuid", .equal, .text("a1"))]) == ["a1 a1", "b2 a1"])
        #expect(try await rows(temp.store, [.init("uuid", .notEqual, .text("a1"))]).isEmpty)
        #expect(try await rows(temp.store, [.init("uuid", .greater, .text("a"))]) == ["a1 a1", "b2 a1"])
        #expect(try await rows(temp.store, [.init("uuid", .isNull)]) == ["c3 -"])
        #expect(try await rows(temp.store, [.init("uuid", .isNotNull)]).count == 2)
    }

    @Test func editsKeepTheRowInStepWithTheDocument() async throws {
        let temp = try TemporaryStore(registry: registry())
        let first = try await temp.store.put(reading("r", uuid: "r", day: 1))
        var renamed = reading("r", uuid: "elsewhere", day: 1)
        renamed["_rev"] = .string(first.rev)
        let second = try await temp.store.put(renamed)
        #expect(try await rows(temp.store) == ["r elsewhere"])
        var back = reading("r", uuid: "r", day: 1)
        back["_rev"] = .string(second.rev)
        _ = try await temp.store.put(back)
        #expect(try await storedValues(temp.store) == ["mark0"])
        #expect(try await rows(temp.store) == ["r r"])
    }

    @Test func aTextColumnDeclaredAgainAsAnIdentifierIsRebuiltFromTheDocuments() async throws {
        let asText = ColumnProjection(
            name: "tagged", columns: [.init("at", path: "when", type: .date), .init("uuid", type: .text)], orderedBy: ["at"])
        let temp = try TemporaryStore(registry: registry(asText))
        _ = try await temp.store.bulkDocs([reading("a", uuid: "a", day: 1), reading("b", uuid: "x", day: 2)].map(JSONValue.object))
        #expect(try await storedValues(temp.store) == ["a", "x"])
        try temp.store.close()
        let reopened = try temp.reopen(registry: registry())
        #expect(try await storedValues(reopened) == ["mark0", "x"])
        #expect(try await rows(reopened) == ["a a", "b x"])
        try reopened.close()
    }

    @Test func anIdentifierColumnCannotOrderAProjection() throws {
        let ordered = ColumnProjection(name: "tagged", columns: [.init("uuid", type: .identifier)], orderedBy: ["uuid"])
        #expect(throws: CloudantError.self) { try ordered.validate() }
    }
}

/// The kind the projection belongs to (tests write its documents as raw JSON).
private struct TaggedReading: CloudantEntity, Hashable {
    var id: String
    var revId: String?
}
