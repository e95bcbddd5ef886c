import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Partitioned stores, as CouchDB's partitioned databases")
struct PartitionedStoreTests {
    func readings() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        try await temp.store.makePartitioned()
        let rows: [JSONValue] = [
            ["_id": "a:1", "x": 1], ["_id": "a:2", "x": 2], ["_id": "b:1", "x": 3], ["_id": "_design/q", "language": "query"],
        ]
        _ = try await temp.store.bulkDocs(rows)
        return temp
    }

    @Test func everyDocumentButDesignAndLocalOnesNeedsAPartition() async throws {
        let temp = try await readings()
        #expect(try await temp.store.isPartitioned())
        let error = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": "nopart", "x": 1]) }
        #expect((error?.category == .invalidInput && error?.context.field == "_id") && error?.message == "Doc id must be of form partition:id")
        let empty = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": ":1"]) }
        #expect(empty?.queryErrorKind?.rawValue == "illegal_partition")
        let reserved = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": "a:_x"]) }
        #expect((reserved?.category == .invalidInput && reserved?.context.field == "_id"))
        try await temp.store.putLocal(id: "_local/checkpoint", body: ["seq": 1], rev: nil)
        #expect(try await temp.store.info().json["props"] == ["partitioned": true])
        let info = try await temp.store.partitionInfo("a")
        #expect(info.documentCount == 2 && info.json["partition"] == "a")
    }

    @Test func onlyAnEmptyStoreIsMadePartitioned() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "plain"])
        await #expect(throws: CloudantError.self) { try await temp.store.makePartitioned() }
        #expect(try await temp.store.info().json["props"] == [:])
    }

    @Test func aPartitionQueryReadsOnlyItsPartitionWithThePartitionedIndexes() async throws {
        let temp = try await readings()
        try await temp.store.createIndex(IndexDefinition(name: "x", designDocument: "local-x", fields: [.ascending("x")]))
        try await temp.store.createIndex(
            IndexDefinition(name: "x", designDocument: "global-x", fields: [.ascending("x")], partitioned: false))
        var request = try FindRequest(["selector": ["x": ["$gt": 0]], "execution_stats": true])
        request.partition = "a"
        let inA = try await temp.store.find(request)
        #expect(inA.docs.map { $0["_id"] } == ["a:1", "a:2"])
        #expect(inA.executionStats?.totalKeysExamined == 2)
        let plan = try await temp.store.explain(request)
        #expect(plan["partitioned"] == true && plan["opts"]?["partition"] == "a" && plan["mrargs"]?["partition"] == "a")
        #expect(plan["index"]?["ddoc"] == "_design/local-x" && plan["index"]?["partitioned"] == true)
        let global = try await temp.store.explain(FindRequest(["selector": ["x": ["$gt": 0]]]))
        #expect(global["index"]?["ddoc"] == "_design/global-x" && global["mrargs"]?["partition"] == .some(.null))
        let ddoc = try await temp.store.document(id: "_design/global-x")
        #expect(ddoc["options"] == ["partitioned": false])
        // Adding a default index to a design document declared global is CouchDB's mismatch error.
        let mismatch = await #expect(throws: CloudantError.self) {
            try await temp.store.createIndex(IndexDefinition(name: "y", designDocument: "global-x", fields: [.ascending("y")]))
        }
        #expect(mismatch?.queryErrorKind?.rawValue == "invalid_partitioned_option")
    }

    @Test func aPartitionQueryOnAStoreThatIsNotPartitionedIsRefused() async throws {
        let temp = try TemporaryStore()
        var request = FindRequest()
        request.partition = "a"
        let error = await #expect(throws: CloudantError.self) { try await temp.store.find(request) }
        #expect(error?.queryErrorKind?.rawValue == "query_parse_error")
    }
}
