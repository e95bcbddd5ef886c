import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `couchdb/max_partition_size` as CouchDB's updater applies it: a partition holding the maximum refuses writes
/// that grow one of its documents (`403 partition_overflow`), and takes the rest.
@Suite("Partition size limit")
struct PartitionSizeLimitTests {
    private static let maximum = 10_240

    private func filled(_ server: LiveServer) async throws -> TestClient {
        let client = server.admin
        #expect(try await client.put("/db?partitioned=true", [:]).status == 201)
        #expect(try await client.put("/_node/_local/_config/couchdb/max_partition_size", .string(String(Self.maximum))).status == 200)
        let padding = String(repeating: " ", count: 1_023) + "0"
        let docs: [JSONValue] = (1...15).map { ["_id": .string("foo:\($0)"), "value": .string(padding)] }
        #expect(try await client.post("/db/_bulk_docs", ["docs": .array(docs)]).status == 201)
        return client
    }

    @Test func aFullPartitionRefusesWritesThatGrowItOnEveryPath() async throws {
        try await withLiveServer { server in
            let client = try await filled(server)
            let posted = try await client.post("/db", ["_id": "foo:new", "value": "stuff"])
            posted.expectCouchError(403, "partition_overflow", "Partition limit exceeded due to update on 'foo:new'")
            #expect(try await client.put("/db/foo:other", ["value": "stuff"]).status == 403)
            let bulk = try await client.post("/db/_bulk_docs", ["docs": [["_id": "foo:bar"], ["_id": "baz:bang"]]])
            #expect(bulk.status == 201)
            #expect(bulk.json.arrayValue?.first?["error"] == "partition_overflow" && bulk.json.arrayValue?.last?["ok"] == true)
            let size = try await client.get("/db/_partition/foo").json["sizes"]?["external"]?.numberValue?.int64Value ?? 0
            #expect(size >= Int64(Self.maximum))
        }
    }

    @Test func aFullPartitionTakesDeletionsShrinkingWritesDesignDocumentsAndReplicatedRevisions() async throws {
        try await withLiveServer { server in
            let client = try await filled(server)
            let first = try await client.get("/db/foo:1").json
            var smaller = first.objectValue ?? [:]
            smaller["value"] = ""
            #expect(try await client.put("/db/foo:1", .object(smaller)).status == 201)
            let second = try await client.get("/db/foo:2").json["_rev"]?.stringValue ?? ""
            #expect(try await client.delete("/db/foo:2?rev=\(second)").status == 200)
            #expect(try await client.put("/db/_design/foo", ["value": "stuff"]).status == 201)
            #expect(try await client.put("/db/bar:1", ["value": "stuff"]).status == 201)
            let replicated = try await client.put(
                "/db/foo:replicated?new_edits=false", ["_rev": "1-23202479633c2b380f79507a776743d5", "value": "stuff"])
            #expect(replicated.status == 201)
            // Without a bound every write goes through.
            _ = try await client.put("/_node/_local/_config/couchdb/max_partition_size", "0")
            #expect(try await client.put("/db/foo:later", ["value": "stuff"]).status == 201)
        }
    }
}
