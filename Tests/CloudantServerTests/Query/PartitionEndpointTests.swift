import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Partitioned databases over HTTP, as CouchDB 3.5 serves them")
struct PartitionEndpointTests {
    @Test func aPartitionedDatabaseServesItsPartitions() async throws {
        try await withLiveServer { server in
            let client = server.admin
            #expect(try await client.send("PUT", "/p?partitioned=true").status == 201)
            #expect(try await client.get("/p").json["props"] == ["partitioned": true])
            let refused = try await client.post("/p/_bulk_docs", ["docs": [["_id": "nopart"]]])
            #expect(refused.text.contains("illegal_docid"))
            _ = try await client.post("/p/_bulk_docs", ["docs": [["_id": "a:1", "x": 1], ["_id": "a:2", "x": 2], ["_id": "b:1", "x": 3]]])
            let info = try await client.get("/p/_partition/a").json
            #expect(info["partition"] == "a" && info["doc_count"] == 2 && info["db_name"] == "p")
            let rows = try await client.get("/p/_partition/a/_all_docs").json["rows"]?.arrayValue
            #expect(rows?.map { $0["id"] } == ["a:1", "a:2"])
            let found = try await client.post("/p/_partition/b/_find", ["selector": ["x": ["$gt": 0]]]).json
            #expect(found["docs"]?.arrayValue?.map { $0["_id"] } == ["b:1"])
            let explained = try await client.post("/p/_partition/a/_explain", ["selector": ["x": ["$gt": 0]]]).json
            #expect(explained["partitioned"] == true && explained["opts"]?["partition"] == "a")
            #expect(try await client.get("/p/_partition/a/_changes").json == ["error": "not_found", "reason": "missing"])
            #expect(try await client.get("/p/_partition/_a").json["error"] == "illegal_partition")
            #expect(try await client.get("/p/_partition/a/_all_docs?partition=b").status == 400)
        }
    }

    @Test func idsWithoutAPartitionFailTheWholeBulkWriteAndPurgeAndEachBulkGetEntry() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/p?partitioned=true")
            let illegal: JSONValue = ["error": "illegal_docid", "reason": "Doc id must be of form partition:id"]
            // One bad id refuses the request before anything is written (`doc_from_json_obj_validate/2`).
            let bulk = try await client.post("/p/_bulk_docs", ["docs": [["_id": "a:fine"], ["_id": "no-partition"]]])
            #expect(bulk.status == 400 && bulk.json == illegal)
            #expect(try await client.get("/p/a:fine").status == 404)
            #expect(try await client.post("/p/_bulk_docs", ["docs": [["_id": "a:fine"], ["_id": "_design/d"]]]).status == 201)
            // The general id rules come first: `_foo:1` is a reserved-looking id before it is a bad partition.
            let underscore = try await client.post("/p/_bulk_docs", ["docs": [["_id": "_foo:1"]]])
            #expect(underscore.json == ["error": "illegal_docid", "reason": "Only reserved document ids may start with underscore."])
            let purge = try await client.post("/p/_purge", ["no-partition": ["1-abc"]])
            #expect(purge.status == 400 && purge.json == illegal)
            let got = try await client.post("/p/_bulk_get", ["docs": [["id": "my-partition-post"], ["id": "a:fine"]]]).json
            let results = got["results"]?.arrayValue ?? []
            #expect(
                results.first == [
                    "id": "my-partition-post",
                    "docs": [["error": ["id": "my-partition-post", "rev": .null, "error": "illegal_docid", "reason": "Doc id must be of form partition:id"]]],
                ])
            #expect(results.last?["docs"]?.arrayValue?.first?["ok"]?["_id"] == "a:fine")
        }
    }

    @Test func aPartitionThatIsNotUTF8IsRefusedInCouchDBsOrder() async throws {
        try await withLiveServer { server in
            let client = server.admin
            #expect(try await client.send("PUT", "/p?partitioned=true").status == 201)
            let info = try await client.get("/p/_partition/a%FF")
            info.expectCouchError(400, "illegal_partition", "Partition must be valid UTF-8")
            let rows = try await client.get("/p/_partition/a%FF/_all_docs")
            #expect(rows.json == ["error": "illegal_partition", "reason": "Partition must be valid UTF-8"])
            // The underscore is checked before the encoding, the method before both.
            #expect(try await client.get("/p/_partition/_%FF/_all_docs").json["reason"] == "Partition must not start with an underscore")
            #expect(try await client.send("PUT", "/p/_partition/a%FF").status == 405)
            // Elsewhere in the path, bytes that are not UTF-8 keep their own answers.
            #expect(try await client.get("/p/a%FF:1").status == 404)
        }
    }

    @Test func aDatabaseThatIsNotPartitionedRefusesPartitions() async throws {
        try await withLiveDatabase { _, client in
            let path = try await client.post("/db/_partition/a/_find", ["selector": [:]])
            #expect(path.status == 400 && path.json["reason"] == "database is not partitioned")
            let body = try await client.post("/db/_find", ["selector": [:], "partition": "a"])
            #expect(body.status == 400 && body.json["error"] == "query_parse_error")
            #expect(try await client.send("PUT", "/other?partitioned=maybe").status == 400)
        }
    }
}
