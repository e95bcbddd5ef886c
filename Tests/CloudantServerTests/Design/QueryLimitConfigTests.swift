import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `[query_server_config]` `query_limit` and `partition_query_limit` as CouchDB 3.5's `apply_limit` uses them:
/// a view, list or `_all_docs` query without a `limit` gets the ceiling as its limit, one with a larger
/// `limit` is a `query_parse_error`; partitioned views and a partition's `_all_docs` are held to
/// `partition_query_limit`; the scan behind a Mango `_find` reads at most `query_limit` index rows.
@Suite("Query limits of the node's configuration")
struct QueryLimitConfigTests {
    static let ddoc: JSONValue = [
        "_id": "_design/d",
        "views": ["by_n": ["map": "function (doc) { if (doc.n) emit(doc.n, null); }"]],
        "lists": ["ids": "function (head, req) { var row, ids = []; while ((row = getRow())) ids.push(row.id); return ids.join(','); }"],
    ]

    func ids(_ answer: JSONValue) -> [String] { answer["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }

    func setLimit(_ client: TestClient, _ key: String, _ value: String) async throws {
        #expect(try await client.put("/_node/_local/_config/query_server_config/\(key)", .string(value)).status == 200)
    }

    @Test func aQueryWithoutALimitGetsTheCeilingAndALargerLimitIsRefused() async throws {
        try await withDesignServer { _, client in
            #expect(try await client.put("/db/_design/d", Self.ddoc).status == 201)
            try await client.bulk("db", (1...8).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0))] })
            try await setLimit(client, "query_limit", "2")

            #expect(ids(try await client.get("/db/_design/d/_view/by_n").json) == ["d1", "d2"])
            #expect(ids(try await client.get("/db/_design/d/_view/by_n?startkey=3&skip=2").json) == ["d5", "d6"])
            let tooLarge = try await client.get("/db/_design/d/_view/by_n?limit=3")
            tooLarge.expectCouchError(400, "query_parse_error", "Limit is too large, must not exceed 2")
            let queries = try await client.post("/db/_design/d/_view/by_n/queries", ["queries": [["skip": 1], ["limit": 5]]])
            #expect(queries.json["reason"] == "Limit is too large, must not exceed 2")

            // `_all_docs` counts the design document among its rows, as CouchDB's.
            #expect(ids(try await client.get("/db/_all_docs").json) == ["_design/d", "d1"])
            #expect(try await client.get("/db/_all_docs?limit=3").json["reason"] == "Limit is too large, must not exceed 2")

            #expect(String(decoding: try await client.get("/db/_design/d/_list/ids/by_n").body, as: UTF8.self) == "d1,d2")
            #expect(try await client.get("/db/_design/d/_list/ids/by_n?limit=3").status == 400)

            // Back to CouchDB's `infinity`: every row again.
            try await setLimit(client, "query_limit", "infinity")
            #expect(ids(try await client.get("/db/_design/d/_view/by_n").json).count == 8)
            _ = try await client.send("DELETE", "/_node/_local/_config/query_server_config/query_limit")
            #expect(ids(try await client.get("/db/_design/d/_view/by_n?limit=8").json).count == 8)
        }
    }

    /// Mango's `limit` counts matches, not rows: CouchDB's `_find` names no `limit` for the scan behind it, so
    /// `apply_limit` holds that scan to `query_limit` rows and the query answers with the matches among them.
    @Test func aMangoQueryReadsAtMostQueryLimitIndexRowsAndAnswersTheMatchesAmongThem() async throws {
        try await withDesignServer { _, client in
            try await client.bulk("db", (1...8).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0)), "even": .bool($0 % 2 == 0)] })
            #expect(try await client.post("/db/_index", ["index": ["fields": ["n"]], "name": "by-n", "type": "json"]).status == 200)
            try await setLimit(client, "query_limit", "3")

            // The index on `n` is read for three rows (d1, d2, d3); of those, d2 matches.
            let indexed: JSONValue = ["selector": ["n": ["$gt": 0], "even": true], "execution_stats": true, "limit": 100]
            let first = try await client.post("/db/_find", indexed).json
            #expect(first["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } == ["d2"])
            #expect(first["execution_stats"]?["total_keys_examined"] == 3)
            // The next page starts after the last match and reads three rows again (d3, d4, d5).
            var next = indexed
            next["bookmark"] = first["bookmark"]
            #expect(try await client.post("/db/_find", next).json["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } == ["d4"])

            // Without a usable index the scan is `_all_docs`, whose first row is the index's design document.
            let unindexed = try await client.post("/db/_find", ["selector": ["even": true], "execution_stats": true]).json
            #expect(unindexed["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } == ["d2"])
            #expect(unindexed["execution_stats"]?["total_keys_examined"] == 3)

            try await setLimit(client, "query_limit", "infinity")
            #expect(try await client.post("/db/_find", indexed).json["docs"]?.arrayValue?.count == 4)
        }
    }

    @Test func partitionedQueriesAreHeldToThePartitionQueryLimit() async throws {
        try await withDesignServer { _, client in
            #expect(try await client.send("PUT", "/p?partitioned=true").status == 201)
            #expect(try await client.put("/p/_design/d", Self.ddoc).status == 201)
            try await client.bulk("p", (1...5).map { ["_id": .string("a:\($0)"), "n": .number(JSONNumber($0))] })
            try await setLimit(client, "partition_query_limit", "3")
            try await setLimit(client, "query_limit", "1")

            #expect(ids(try await client.get("/p/_partition/a/_design/d/_view/by_n").json) == ["a:1", "a:2", "a:3"])
            #expect(ids(try await client.get("/p/_partition/a/_all_docs").json) == ["a:1", "a:2", "a:3"])
            #expect(
                try await client.get("/p/_partition/a/_design/d/_view/by_n?limit=4").json["reason"]
                    == "Limit is too large, must not exceed 3")
            // The whole database's `_all_docs` is not a partition's: `query_limit` holds it.
            #expect(ids(try await client.get("/p/_all_docs").json) == ["_design/d"])
            // A partition's `_find` is held to `query_limit` (Mango's `ignore_partition_query_limit`).
            let found = try await client.post("/p/_partition/a/_find", ["selector": ["n": ["$gt": 0]]]).json
            #expect(found["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } == ["a:1"])
        }
    }

    @Test func aCeilingThatIsNotANumberIsRefusedWhenSet() async throws {
        try await withDesignServer { _, client in
            let refused = try await client.put("/_node/_local/_config/query_server_config/query_limit", "lots")
            #expect(refused.status == 400)
            #expect(try await client.get("/_node/_local/_config/query_server_config").json == [:])
        }
    }
}
