import CloudantCore
import CloudantJavaScript
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing

/// A view indexes each document's winning revision only, as couch_mrview does: when replication brings a
/// conflicting revision, a deletion or a design document, the index already built follows the new winner.
@Suite("Views stay right through conflicts and replication")
struct ViewsThroughReplicationTests {
    static let engine = JavaScriptEngine(configuration: .init(timeLimit: .seconds(60), maximumInstances: 1, log: { _ in }))

    static let designDocument: JSONObject = [
        "_id": "_design/stats",
        "views": ["by_value": ["map": "function (doc) { if (doc.value !== undefined) emit(doc.value, doc._id); }", "reduce": "_count"]],
    ]

    /// Two replicas of one database: each runs design functions.
    struct Replicas {
        let phone: TemporaryStore
        let laptop: TemporaryStore

        init() throws {
            var options = StoreOptions()
            options.designFunctions = ViewsThroughReplicationTests.engine
            phone = try TemporaryStore(name: "phone", options: options)
            laptop = try TemporaryStore(name: "laptop", options: options)
        }

        func replicate(from source: TemporaryStore, to target: TemporaryStore) async throws {
            let stats = try await Replicator(source: LocalPeer(source.store), target: LocalPeer(target.store)).run()
            #expect(stats.failures.isEmpty, "\(stats.failures)")
        }
    }

    /// The view's rows as (key, id) pairs, and its reduced count.
    static func rows(_ store: DocumentStore) async throws -> (rows: [[JSONValue]], count: JSONValue?) {
        let rows = try await store.queryView(designDocument: "stats", view: "by_value", query: .init(parameters: [("reduce", "false")]))
        let reduced = try await store.queryView(designDocument: "stats", view: "by_value")
        return (rows.rows.map { [$0.key, .string($0.id ?? "")] }, reduced.rows.first?.value)
    }

    @Test func aReplicatedConflictIndexesOnlyTheWinnerAndResolvingItIndexesTheNewWinner() async throws {
        let replicas = try Replicas()
        let phone = replicas.phone.store, laptop = replicas.laptop.store
        try await phone.put(Self.designDocument)
        let first = try await phone.put(["_id": "reading", "value": 1])
        try await replicas.replicate(from: replicas.phone, to: replicas.laptop)
        // Both replicas build the view before they diverge, so what follows is the index's incremental update.
        #expect(try await Self.rows(laptop).rows == [[1, "reading"]])

        _ = try await phone.put(["_id": "reading", "_rev": .string(first.rev), "value": 20])
        _ = try await laptop.put(["_id": "reading", "_rev": .string(first.rev), "value": 30])
        #expect(try await Self.rows(phone).rows == [[20, "reading"]])
        try await replicas.replicate(from: replicas.laptop, to: replicas.phone)

        // Two leaves of generation 2: the winner is CouchDB's (the greater revision id); only it is indexed.
        var readConflicts = ReadOptions()
        readConflicts.conflicts = true
        let winner = try await phone.document(id: "reading", options: readConflicts)
        let loser = try #require(winner["_conflicts"]?.arrayValue?.first?.stringValue)
        let winnerValue = try #require(winner["value"])
        #expect(try await Self.rows(phone) == ([[winnerValue, "reading"]], 1))
        let withDocuments = try await phone.queryView(
            designDocument: "stats", view: "by_value",
            query: .init(parameters: [("reduce", "false"), ("include_docs", "true"), ("conflicts", "true")]))
        #expect(withDocuments.rows.first?.document?["_conflicts"] == [.string(loser)])

        // Resolving the conflict by deleting the winner makes the other leaf the winner, and the view follows.
        _ = try await phone.delete(id: "reading", rev: try #require(winner["_rev"]?.stringValue))
        let resolved = try await phone.document(id: "reading")
        #expect(resolved["_rev"]?.stringValue == loser)
        let resolvedValue = try #require(resolved["value"])
        #expect(resolvedValue != winnerValue)
        #expect(try await Self.rows(phone) == ([[resolvedValue, "reading"]], 1))

        // The other replica gets the resolution and its view agrees.
        try await replicas.replicate(from: replicas.phone, to: replicas.laptop)
        #expect(try await Self.rows(laptop) == ([[resolvedValue, "reading"]], 1))
    }

    @Test func aReplicatedDeletionRemovesTheRowAndAReplicatedDesignDocumentIsQueriedWhereItArrives() async throws {
        let replicas = try Replicas()
        let phone = replicas.phone.store, laptop = replicas.laptop.store
        let revs = try await phone.bulkDocs([["_id": "a", "value": 1], ["_id": "b", "value": 2], ["_id": "c", "value": 3]])
        try await replicas.replicate(from: replicas.phone, to: replicas.laptop)
        // The design document is written on the laptop only and arrives on the phone by replication.
        try await laptop.put(Self.designDocument)
        #expect(try await Self.rows(laptop) == ([[1, "a"], [2, "b"], [3, "c"]], 3))
        guard case .ok(let b) = revs[1] else { Issue.record("b was not written"); return }
        _ = try await phone.delete(id: "b", rev: b.rev)
        try await replicas.replicate(from: replicas.laptop, to: replicas.phone)
        try await replicas.replicate(from: replicas.phone, to: replicas.laptop)
        #expect(try await Self.rows(phone) == ([[1, "a"], [3, "c"]], 2))
        #expect(try await Self.rows(laptop) == ([[1, "a"], [3, "c"]], 2))
    }
}
