@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Index entries computed before the write transaction (by the helpers preparing a batch) must be exactly
/// the writer's own, and must not be used when the catalogue changed in between.
@Suite("Index entries prepared before the transaction")
struct IndexSnapshotTests {
    @Test("Prepared entries are the keys the writer computes, and nil where the index does not hold the document")
    func preparedEntriesAreTheWritersKeys() async throws {
        let temp = try TemporaryStore()
        for definition in IndexBuildTests.definitions { try await temp.store.createIndex(definition) }
        let snapshot = try #require(try await temp.store.read(.storeUnreadable) { db in IndexSnapshot(try IndexCatalog.all(in: db)) })
        var held = 0
        for document in IndexBuildTests.documents(count: 300) {
            let incoming = try IncomingDocument(try #require(document.objectValue))
            let id = try #require(incoming.id)
            let entries = snapshot.entries(id: id, body: incoming.body)
            #expect(entries.count == snapshot.indexes.count)
            for (index, keys) in zip(snapshot.indexes, entries) {
                let expected = index.admits(id: id, body: incoming.body) ? index.jsonKeys(id: id, body: incoming.body) : nil
                #expect(keys == expected, "\(index.definition.name) \(id)")
                if keys != nil { held += 1 }
            }
        }
        #expect(held > 300)
    }

    /// Writes `documents`, prepared against `snapshot`, in one transaction as a batch does.
    private func write(_ documents: [JSONValue], preparedAgainst snapshot: IndexSnapshot, into store: DocumentStore) async throws {
        let prepared = try documents.map { PreparedWrite(try IncomingDocument(try #require($0.objectValue)), indexes: snapshot) }
        #expect(prepared.allSatisfy { $0.indexEntries != nil })
        let cache = store.indexCache
        _ = try await store.write(.storeUnwritable) { db in
            var writer = try DocumentWriter(
                db: db, makeDocumentID: { UUID().uuidString }, indexCache: cache, now: { Date() }, preparedAgainst: snapshot)
            for write in prepared { _ = try writer.writeInteractive(write) }
        }
    }

    /// The entries the same documents get in a store where nothing was prepared: the indexes built after.
    private func builtEntries(_ documents: [JSONValue], definitions: [IndexDefinition]) async throws -> [String: [[String]]] {
        let built = try TemporaryStore()
        _ = try await built.store.bulkDocs(documents)
        for definition in definitions { try await built.store.createIndex(definition) }
        return try await IndexBuildTests.entries(of: built.store)
    }

    @Test(
        "Entries prepared before the catalogue changed are computed again by the writer",
        arguments: ["created", "dropped", "replaced"])
    func entriesPreparedBeforeACatalogueChangeAreRecomputed(change: String) async throws {
        let first = IndexBuildTests.definitions[0]
        let second = IndexBuildTests.definitions[1]
        let third = IndexBuildTests.definitions[7]
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.createIndex(first)
        if change != "created" { try await store.createIndex(second) }
        let snapshot = try #require(try await store.read(.storeUnreadable) { db in IndexSnapshot(try IndexCatalog.all(in: db)) })
        switch change {
        case "created": try await store.createIndex(second)
        case "dropped": try await store.deleteIndex(designDocument: first.name, name: first.name)
        default:
            try await store.deleteIndex(designDocument: second.name, name: second.name)
            try await store.createIndex(third)
        }
        let documents = IndexBuildTests.documents(count: 200)
        try await write(documents, preparedAgainst: snapshot, into: store)

        let now = switch change {
        case "created": [first, second]
        case "dropped": [second]
        default: [first, third]
        }
        let expected = try await builtEntries(documents, definitions: now)
        let actual = try await IndexBuildTests.entries(of: store)
        #expect(actual.keys.sorted() == now.map(\.name).sorted())
        for definition in now {
            #expect((expected[definition.name]?.count ?? 0) > 10, "\(definition.name) should hold entries")
            #expect(actual[definition.name] == expected[definition.name], "\(definition.name)")
        }
    }

    @Test("Entries prepared against the current catalogue are written as they are")
    func entriesPreparedAgainstTheCurrentCatalogueAreWritten() async throws {
        let definitions = IndexBuildTests.definitions
        let temp = try TemporaryStore()
        for definition in definitions { try await temp.store.createIndex(definition) }
        let snapshot = try #require(try await temp.store.read(.storeUnreadable) { db in IndexSnapshot(try IndexCatalog.all(in: db)) })
        let documents = IndexBuildTests.documents(count: 300)
        try await write(documents, preparedAgainst: snapshot, into: temp.store)
        let expected = try await builtEntries(documents, definitions: definitions)
        let actual = try await IndexBuildTests.entries(of: temp.store)
        for definition in definitions { #expect(actual[definition.name] == expected[definition.name], "\(definition.name)") }
    }
}
