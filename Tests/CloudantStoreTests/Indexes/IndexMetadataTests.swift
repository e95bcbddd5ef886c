@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// A Mango JSON index sees each document as CouchDB's indexer opens it (`couch_index_updater`: the document
/// with its conflicts and deleted conflicts): `_rev`, `_conflicts`, `_deleted_conflicts` and the `_attachments`
/// stubs can be indexed and filtered on, and their entries follow every change of the revision tree.
@Suite("JSON indexes over document metadata")
struct IndexMetadataTests {
    private static func index(_ json: String) throws -> IndexDefinition {
        try IndexDefinition(indexRequest: JSONValue(parsing: Array(json.utf8)))
    }

    /// The ids `selector` finds through the index named `name` (in design document `name`), in index order.
    private static func found(
        _ selector: JSONValue, index name: String, conflicts: Bool = false, in store: DocumentStore
    ) async throws -> [String] {
        var request = FindRequest(selector: try MangoSelector(selector), conflicts: conflicts)
        request.useIndex = [name, name]
        return try await store.find(request).docs.compactMap { $0["_id"]?.stringValue }
    }

    /// The document ids an index's table holds, in its order.
    private static func entries(of name: String, in store: DocumentStore) async throws -> [String] {
        try await store.read(.storeUnreadable) { db in
            let index = try #require(try IndexCatalog.all(in: db).first { $0.definition.name == name })
            return try String.fetchAll(db, sql: "SELECT id FROM \(index.tableName)")
        }
    }

    @Test("An index on _conflicts holds the documents in conflict, from its build and through every change of their trees")
    func anIndexOnConflictsFollowsTheTree() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.bulkDocs([["_id": "before", "_rev": "1-aaaa", "n": 1]], newEdits: false)
        _ = try await store.bulkDocs([["_id": "before", "_rev": "1-bbbb", "n": 2]], newEdits: false)
        try await store.put(["_id": "plain", "n": 3])
        try await store.createIndex(Self.index(#"{"index":{"fields":["_conflicts"]},"ddoc":"c","name":"c"}"#))
        // Built over the documents already there.
        #expect(try await Self.entries(of: "c", in: store) == ["before"])
        // A conflicting revision that does not win changes no body; the entry comes with it.
        _ = try await store.bulkDocs([["_id": "plain", "_rev": "1-0000", "n": 0]], newEdits: false)
        #expect(try await Self.entries(of: "c", in: store).sorted() == ["before", "plain"])
        let selector: JSONValue = ["_conflicts": ["$exists": true]]
        #expect(try await Self.found(selector, index: "c", conflicts: true, in: store).sorted() == ["before", "plain"])
        // As in CouchDB, the documents are matched as read: without `conflicts` they have no `_conflicts`.
        #expect(try await Self.found(selector, index: "c", in: store).isEmpty)
        // Deleting the losing branch ends the conflict without changing the winner.
        try await store.delete(id: "plain", rev: "1-0000")
        #expect(try await Self.entries(of: "c", in: store) == ["before"])
        // Purging the losing revision ends the other one.
        _ = try await store.purge(["before": ["1-aaaa"]])
        #expect(try await Self.entries(of: "c", in: store).isEmpty)
    }

    @Test("An index on _rev orders documents by their winning revision and moves with each update")
    func anIndexOnRevisionFollowsTheWinner() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.createIndex(Self.index(#"{"index":{"fields":["_rev"]},"ddoc":"r","name":"r"}"#))
        let a = try await store.put(["_id": "a", "n": 1])
        // Bodies differ: a first revision's hash does not depend on the id.
        let b = try await store.put(["_id": "b", "n": 2])
        let everything: JSONValue = ["_rev": ["$gt": nil]]
        let byRevision = [(a.rev, "a"), (b.rev, "b")].sorted { $0.0 < $1.0 }.map(\.1)
        #expect(try await Self.found(everything, index: "r", in: store) == byRevision)
        let a2 = try await store.put(["_id": "a", "_rev": .string(a.rev), "n": 2])
        #expect(try await Self.found(["_rev": .string(a2.rev)], index: "r", in: store) == ["a"])
        #expect(try await Self.entries(of: "r", in: store).sorted() == ["a", "b"])
        #expect(try await Self.found(["_rev": .string(a.rev)], index: "r", in: store).isEmpty)
        try await store.delete(id: "b", rev: b.rev)
        #expect(try await Self.entries(of: "r", in: store) == ["a"])
    }

    @Test("Attachment stubs and deleted conflicts are indexed, and a partial filter may name them")
    func attachmentStubsAndDeletedConflictsAreIndexed() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.createIndex(
            Self.index(#"{"index":{"fields":["_attachments.photo.content_type"]},"ddoc":"a","name":"a"}"#))
        try await store.createIndex(
            Self.index(
                #"{"index":{"fields":["n"],"partial_filter_selector":{"_deleted_conflicts":{"$exists":true}}},"ddoc":"d","name":"d"}"#))
        try await store.put([
            "_id": "pictured", "n": 1,
            "_attachments": ["photo": ["content_type": "image/png", "data": .string(Base64.encode([1, 2, 3]))]],
        ])
        try await store.put(["_id": "bare", "n": 2])
        #expect(try await Self.found(["_attachments.photo.content_type": "image/png"], index: "a", in: store) == ["pictured"])
        _ = try await store.bulkDocs([["_id": "bare", "_rev": "1-0000", "n": 0]], newEdits: false)
        #expect(try await Self.entries(of: "d", in: store).isEmpty)
        try await store.delete(id: "bare", rev: "1-0000")
        #expect(try await Self.entries(of: "d", in: store) == ["bare"])
    }

    @Test("An index built over existing documents holds the entries writes into it made")
    func aBuiltMetadataIndexEqualsAMaintainedOne() async throws {
        let definition = try Self.index(#"{"index":{"fields":["_conflicts","_rev"]},"ddoc":"m","name":"m"}"#)
        let maintained = try TemporaryStore()
        let store = maintained.store
        try await store.createIndex(definition)
        for number in 0..<60 {
            let id = "doc-\(number)"
            let first = try await store.put(["_id": .string(id), "n": .number(JSONNumber(number))])
            if number % 3 == 0 {
                _ = try await store.bulkDocs([["_id": .string(id), "_rev": "1-0000", "n": -1]], newEdits: false)
            }
            if number % 5 == 0 { try await store.put(["_id": .string(id), "_rev": .string(first.rev), "n": 1]) }
        }
        // The same revisions, with their histories, written into a store without the index.
        let built = try TemporaryStore()
        let listing = try await store.allDocs(AllDocsOptions(includeDocs: true, conflicts: true))
        for row in listing.rows {
            let document = try #require(row["doc"]?.objectValue)
            let id = try #require(document["_id"]?.stringValue)
            var revisions = [try #require(document["_rev"]?.stringValue)]
            revisions += document["_conflicts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for rev in revisions {
                var options = ReadOptions()
                options.rev = rev
                options.revs = true
                _ = try await built.store.bulkDocs([.object(try await store.document(id: id, options: options))], newEdits: false)
            }
        }
        try await built.store.createIndex(definition)
        let maintainedEntries = try await IndexBuildTests.entries(of: store)
        #expect(maintainedEntries["m"]?.count == 20)
        // Compared as sets: the tables may be read in either of their orders.
        let builtEntries = try await IndexBuildTests.entries(of: built.store)
        #expect(Set(try #require(builtEntries["m"])) == Set(try #require(maintainedEntries["m"])))
    }

    @Test("A store whose metadata index was filled from bodies alone is filled again when it opens")
    func anOlderMetadataIndexIsRefilledOnOpen() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([["_id": "x", "_rev": "1-aaaa"]], newEdits: false)
        _ = try await temp.store.bulkDocs([["_id": "x", "_rev": "1-bbbb"]], newEdits: false)
        try await temp.store.createIndex(Self.index(#"{"index":{"fields":["_conflicts"]},"ddoc":"c","name":"c"}"#))
        // As the schema before left it: no entries, no index by document row, the migration not applied.
        try await temp.store.write(.storeUnwritable) { db in
            let index = try #require(try IndexCatalog.all(in: db).first)
            try db.execute(sql: "DELETE FROM \(index.tableName); DROP INDEX \(index.tableName)_by_doc")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = '2026-12-04-index-metadata'")
        }
        let reopened = try temp.reopen()
        #expect(try await Self.entries(of: "c", in: reopened) == ["x"])
        let indexes = try await reopened.read(.storeUnreadable) { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_by_doc'")
        }
        #expect(indexes.count == 1)
    }
}
