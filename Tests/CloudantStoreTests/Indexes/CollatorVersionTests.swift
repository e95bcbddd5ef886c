import CloudantCore
import CloudantStore
import CloudantTestSupport
import GRDB
import Testing

/// Index keys are ICU sort keys, comparable only with keys of the same collator version: a store whose keys
/// another collator made (or that records none, as stores from before keys were ICU's) makes them again.
@Suite("Index keys and the collator that made them")
struct CollatorVersionTests {
    static let strings = ["fj", "\u{FB01}", "\u{E0}", "\u{E1}", "2", "\u{BD}", "1", "b"]
    /// ICU's root order, which CouchDB sorts these with.
    static let icuOrder = ["1", "\u{BD}", "2", "\u{E1}", "\u{E0}", "b", "\u{FB01}", "fj"]
    static let view = SwiftView(name: "by-s", version: 1) { document, emit in emit(document["s"] ?? .null, .null) }

    /// The strings as a `sort` over the JSON index and as the view's rows give them.
    static func orders(in store: DocumentStore) async throws -> (index: [String], view: [String]) {
        let found = try await store.find(FindRequest(["selector": ["s": ["$gt": nil]], "sort": ["s"], "fields": ["s"]]))
        let rows = try await store.queryView(view).rows
        return (found.docs.compactMap { $0["s"]?.stringValue }, rows.compactMap { $0.key.stringValue })
    }

    @Test func keysFromAnotherCollatorVersionAreMadeAgainWhenTheStoreOpens() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs(Self.strings.enumerated().map { ["_id": .string("d\($0.offset)"), "s": .string($0.element)] })
        try await temp.store.createIndex(IndexDefinition(name: "s", fields: [.ascending("s")]))
        var orders = try await Self.orders(in: temp.store)
        #expect(orders.index == Self.icuOrder && orders.view == Self.icuOrder)
        let file = temp.store.fileURL
        try temp.store.close()

        // As another ICU left it: its version recorded, and keys this one cannot use (here: none at all).
        let queue = try DatabaseQueue(path: file.path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE store_info SET value = '0.1' WHERE key = 'collator_version'")
            #expect(db.changesCount == 1)
            for table in try String.fetchAll(db, sql: "SELECT table_name FROM mango_indexes UNION ALL SELECT table_name FROM view_indexes") {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
        try queue.close()

        let reopened = try DocumentStore.open(name: "test", fileURL: file)
        orders = try await Self.orders(in: reopened)
        #expect(orders.index == Self.icuOrder, "the JSON index was filled again")
        #expect(orders.view == Self.icuOrder, "the view was dropped and built again")
        let recorded = try await DatabaseQueue(path: file.path).read { db in
            try String.fetchOne(db, sql: "SELECT value FROM store_info WHERE key = 'collator_version'")
        }
        #expect(recorded == Collation.version)
        try reopened.close()
    }

    @Test func keysOfTheRunningCollatorAreLeftAlone() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([["_id": "a", "s": "x"]])
        try await temp.store.createIndex(IndexDefinition(name: "s", fields: [.ascending("s")]))
        let file = temp.store.fileURL
        try temp.store.close()
        // An entry removed behind the store's back stays removed: opening did not refill the index.
        let queue = try DatabaseQueue(path: file.path)
        try await queue.write { db in
            for table in try String.fetchAll(db, sql: "SELECT table_name FROM mango_indexes") { try db.execute(sql: "DELETE FROM \(table)") }
        }
        try queue.close()
        let reopened = try DocumentStore.open(name: "test", fileURL: file)
        let found = try await reopened.find(FindRequest(["selector": ["s": ["$gt": nil]], "sort": ["s"]]))
        #expect(found.docs.isEmpty)
        try reopened.close()
    }
}
