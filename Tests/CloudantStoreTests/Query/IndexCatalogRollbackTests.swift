@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Index catalogue after a rolled-back schema change")
struct IndexCatalogRollbackTests {
    private struct Abandoned: Error {}

    @Test("An index created in a transaction that fails leaves no cached index or plan behind")
    func aRolledBackIndexLeavesNothingCached() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.bulkDocs([["_id": "a", "x": 1, "y": 2], ["_id": "b", "x": 3, "y": 4]])
        let byX = try FindRequest(["selector": ["x": 1]])
        #expect(try await store.find(byX).docs.count == 1)

        // The index on x is created, read back into the catalogue cache and planned on, then the transaction
        // fails: SQLite's schema version goes back to what it was.
        let definition = try DocumentStore.validated(IndexDefinition(name: "by-x", fields: [.ascending("x")]))
        let cache = store.indexCache
        let (makeID, now) = (store.options.makeDocumentID, store.options.now)
        await #expect(throws: CloudantError.self) {
            try await store.write(.storeUnwritable) { db in
                _ = try DocumentStore.createIndex(definition, in: db, makeID: makeID, now: now)
                let (version, indexes) = try cache.catalogue(in: db)
                _ = try cache.plans.plan(
                    byX, indexes: indexes.map(\.definition), catalogueVersion: version, databaseIsPartitioned: false)
                throw Abandoned()
            }
        }

        // Another index takes the same schema version number.
        try await store.createIndex(IndexDefinition(name: "by-y", fields: [.ascending("y")]))
        #expect(try await store.indexes().map(\.name).contains("by-x") == false)
        let found = try await store.find(byX)
        #expect(found.docs.map { $0["_id"] } == ["a"])
        let explained = try await store.explain(byX)
        #expect(explained["index"]?["name"] != "by-x")
    }
}
