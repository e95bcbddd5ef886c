import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// A document's entity kind is stored once per store (`document_kinds`) and its row holds the kind's number.
@Suite("Document kinds stored as numbers")
struct DocumentKindNumberTests {
    private func typed(_ id: String, _ kind: String?, field: String = "entityType") -> JSONObject {
        var body: JSONObject = ["_id": .string(id), "n": .number(JSONNumber(id.count))]
        if let kind { body[field] = .string(kind) }
        return body
    }

    /// The stored kind names, by number.
    private func storedKinds(_ store: DocumentStore) async throws -> [String] {
        try await read(store) { db in try String.fetchAll(db, sql: "SELECT name FROM document_kinds ORDER BY number") }
    }

    /// Each document's kind name as its row names it, against the kind its body names, by id.
    private func rowKinds(_ store: DocumentStore) async throws -> [String: String] {
        try await read(store) { db in
            var kinds: [String: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT d.id, typeof(d.kind), k.name FROM documents d LEFT JOIN document_kinds k ON k.number = d.kind")
            {
                let type: String = row[1]
                kinds[row[0]] = type == "null" ? "-" : "\(type) \(row[2] as String? ?? "?")"
            }
            return kinds
        }
    }

    private func read<T: Sendable>(_ store: DocumentStore, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let queue = try DatabaseQueue(path: store.fileURL.path)
        defer { try? queue.close() }
        return try await queue.read(body)
    }

    private func ids(_ store: DocumentStore, ofKind kind: String) async throws -> [String] {
        let found = try await store.find(FindRequest(selector: try MangoSelector(["entityType": .string(kind)]), limit: 100))
        return found.docs.compactMap { $0["_id"]?.stringValue }.sorted()
    }

    @Test func eachKindIsStoredOnceAndRowsHoldItsNumber() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([
            typed("a1", "Alpha"), typed("b1", "Beta"), typed("a2", "Alpha"), typed("plain", nil),
            typed("c1", "Core", field: "CDTISEntityName"),
        ].map(JSONValue.object))
        _ = try await temp.store.put(typed("b2", "Beta"))
        #expect(try await storedKinds(temp.store) == ["Alpha", "Beta", "Core"])
        #expect(try await rowKinds(temp.store) == [
            "a1": "integer Alpha", "a2": "integer Alpha", "b1": "integer Beta", "b2": "integer Beta", "plain": "-",
            "c1": "integer Core",
        ])
        // Queries narrowed by kind find the documents by number.
        #expect(try await ids(temp.store, ofKind: "Alpha") == ["a1", "a2"])
        #expect(try await ids(temp.store, ofKind: "Beta") == ["b1", "b2"])
        #expect(try await ids(temp.store, ofKind: "Gamma").isEmpty)
    }

    @Test func anEditThatChangesTheKindMovesTheRowToTheNewNumber() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(typed("d", "Alpha"))
        var changed = typed("d", "Beta")
        changed["_rev"] = .string(first.rev)
        let second = try await temp.store.put(changed)
        #expect(try await rowKinds(temp.store) == ["d": "integer Beta"])
        #expect(try await ids(temp.store, ofKind: "Alpha").isEmpty)
        var plain = typed("d", nil)
        plain["_rev"] = .string(second.rev)
        _ = try await temp.store.put(plain)
        #expect(try await rowKinds(temp.store) == ["d": "-"])
        #expect(try await storedKinds(temp.store) == ["Alpha", "Beta"])  // kinds stay, so no number is reused
    }

    @Test func aKindAddedByAWriteThatRolledBackLeavesNoNumberBehind() async throws {
        let temp = try TemporaryStore()
        let kept = try await temp.store.put(typed("kept", "Alpha"))
        // The first document adds the kind "Pulse"; the second has a stale revision, so both roll back.
        var stale = typed("kept", "Alpha")
        stale["_rev"] = .string("1-00000000000000000000000000000000")
        await #expect(throws: CloudantError.self) { try await temp.store.writeAtomically([typed("p", "Pulse"), stale]) }
        #expect(try await storedKinds(temp.store) == ["Alpha"])
        // Kinds added afterwards take the number the rolled-back one had; every row names its own kind.
        _ = try await temp.store.put(typed("t", "Temperature"))
        _ = try await temp.store.put(typed("p", "Pulse"))
        #expect(try await storedKinds(temp.store) == ["Alpha", "Temperature", "Pulse"])
        #expect(try await rowKinds(temp.store) == ["kept": "integer Alpha", "t": "integer Temperature", "p": "integer Pulse"])
        #expect(try await ids(temp.store, ofKind: "Pulse") == ["p"])
        #expect(kept.rev.hasPrefix("1-"))
    }
}
