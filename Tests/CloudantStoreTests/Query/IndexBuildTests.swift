@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// Building an index over documents already in the store (one sorted `INSERT … SELECT`, keys read from
/// only the indexed members) must give exactly the entries that writing the same documents into an
/// existing index gives (the maintainer, which parses each body in full).
@Suite("Building an index over existing documents")
struct IndexBuildTests {
    static let definitions = [
        IndexDefinition(name: "by-value", fields: [.ascending("value")]),
        IndexDefinition(name: "by-type-value", fields: [.ascending("type"), .ascending("value")]),
        IndexDefinition(name: "by-nested", fields: [.ascending("k.m")]),
        IndexDefinition(name: "by-id-and-value", fields: [.ascending("_id"), .ascending("value")]),
        IndexDefinition(name: "by-dotted", fields: [.ascending(#"a\.b"#)]),
        // Stored JSON writes this name with an escape (\"), which the build must decode to match.
        IndexDefinition(name: "by-odd-name", fields: [.ascending("q\"uo\u{E9}\u{1}")]),
        IndexDefinition(name: "by-element", fields: [.ascending("list.1")]),
        IndexDefinition(
            name: "partial", fields: [.ascending("value")], partialFilterSelector: ["type": ["$in": ["a", "b"]]]),
    ]

    /// Values of every JSON type, with strings that need escapes and that collate specially.
    static func value(_ rng: inout some RandomNumberGenerator, depth: Int = 0) -> JSONValue {
        let strings = ["", "a", "A", "é", "e\u{301}", "10", "tab\there", "quote\"d", "back\\slash", "😀", "\u{1}"]
        switch Int.random(in: 0..<(depth > 1 ? 5 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(.integer(Int64.random(in: -1_000...1_000, using: &rng)))
        case 3: return .number(.double(Double(Int.random(in: -60...60, using: &rng)) / 8))
        case 4: return .string(strings.randomElement(using: &rng) ?? "")
        case 5: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        case 6: return ["m": value(&rng, depth: depth + 1), "n": "x"]
        default: return .number(.integer(Int64.random(in: 0...9, using: &rng)))
        }
    }

    static func documents(count: Int) -> [JSONValue] {
        var rng = SplitMix64(seed: 2026)
        let names = ["value", "type", "k", "a.b", "a", "q\"uo\u{E9}\u{1}", "list", "other", "_id"]
        return (0..<count).map { index in
            var members: [(String, JSONValue)] = [("_id", .string(String(format: "doc-%04d", index)))]
            for name in names.dropLast() where Int.random(in: 0..<3, using: &rng) > 0 {
                members.append((name, name == "type" ? .string(["a", "b", "c"].randomElement(using: &rng) ?? "a") : value(&rng)))
            }
            return .object(JSONObject(members))
        }
    }

    /// Every entry of every JSON index, by index name: the key columns and the document id, in table order.
    static func entries(of store: DocumentStore) async throws -> [String: [[String]]] {
        try await store.read(.storeUnreadable) { db in
            var result: [String: [[String]]] = [:]
            for index in try IndexCatalog.all(in: db) {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(index.tableName)")
                result[index.definition.name] = rows.map { row in
                    (0..<index.paths.count).map { column in (row[column] as Data).map { String($0, radix: 16) }.joined(separator: ".") }
                        + [row[index.paths.count] as String]
                }
            }
            return result
        }
    }

    @Test("An index built over existing documents holds exactly the entries writes into it would have made")
    func aBuiltIndexEqualsAMaintainedOne() async throws {
        let documents = Self.documents(count: 600)
        let maintained = try TemporaryStore()
        for definition in Self.definitions { try await maintained.store.createIndex(definition) }
        _ = try await maintained.store.bulkDocs(documents)

        let built = try TemporaryStore()
        _ = try await built.store.bulkDocs(documents)
        for definition in Self.definitions { try await built.store.createIndex(definition) }

        let expected = try await Self.entries(of: maintained.store)
        let actual = try await Self.entries(of: built.store)
        #expect(expected.count == Self.definitions.count)
        for definition in Self.definitions {
            let name = definition.name
            #expect((expected[name]?.count ?? 0) > 10, "index \(name) should hold entries")
            #expect(actual[name] == expected[name], "index \(name)")
        }
    }

    @Test("Deleted documents and design documents get no entry in a built index")
    func deletedAndDesignDocumentsAreLeftOut() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        let written = try await store.bulkDocs([
            ["_id": "live", "value": 1], ["_id": "gone", "value": 2], ["_id": "_design/x", "value": 3, "views": [:]],
        ])
        let goneRev = try #require(written.compactMap(\.result).first { $0.id == "gone" }?.rev)
        _ = try await store.bulkDocs([["_id": "gone", "_rev": .string(goneRev), "_deleted": true]])
        try await store.createIndex(IndexDefinition(name: "by-value", fields: [.ascending("value")]))
        let entries = try await Self.entries(of: store)
        #expect(entries["by-value"]?.map { $0.last } == ["live"])
        let found = try await store.find(FindRequest(["selector": ["value": ["$gt": 0]], "use_index": "by-value"]))
        #expect(found.docs.map { $0["_id"] } == ["live"])
    }

    @Test("A built index answers queries in CouchDB's order: key, then document id")
    func aBuiltIndexServesSortedQueries() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.bulkDocs([
            ["_id": "c", "n": 2], ["_id": "a", "n": "x"], ["_id": "b", "n": 2], ["_id": "d", "n": nil],
            ["_id": "e", "n": [1]], ["_id": "f", "n": ["k": 1]], ["_id": "g", "n": true], ["_id": "h"],
        ])
        try await store.createIndex(IndexDefinition(name: "by-n", fields: [.ascending("n")]))
        let found = try await store.find(
            FindRequest(["selector": ["n": ["$gte": nil]], "sort": [["n": "asc"]], "use_index": "by-n"]))
        #expect(found.docs.map { $0["_id"]?.stringValue ?? "" } == ["d", "g", "b", "c", "a", "e", "f"])
    }
}
