import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Views of a partitioned database, by CouchDB 3.5's rules (`couch_mrview_util:validate_args`,
/// `chttpd_db:handle_partition_req`, `couch_mrview:validate`): a design document's views are partitioned by
/// default there, queried one partition at a time, their rows and reductions confined to it.
@Suite("Partitioned views over HTTP")
struct PartitionedViewTests {
    static let ddoc: JSONValue = [
        "_id": "_design/app",
        "views": [
            "by_n": ["map": "function (doc) { emit(doc.n, doc.kind); }"],
            "kinds": ["map": "function (doc) { emit(doc.kind, 1); }", "reduce": "_count"],
        ],
        "lists": ["ids": "function (head, req) { var row, ids = []; while ((row = getRow())) ids.push(row.id); return ids.join(','); }"],
    ]

    static let global: JSONValue = [
        "_id": "_design/global", "options": ["partitioned": false],
        "views": ["by_n": ["map": "function (doc) { emit(doc.n, null); }"]],
    ]

    /// `p` partitioned, with partitions `a` (3 documents), `b` (2) and `c` (1), sorting a < b < c.
    func filled(_ client: TestClient) async throws {
        #expect(try await client.send("PUT", "/p?partitioned=true").status == 201)
        #expect(try await client.put("/p/_design/app", Self.ddoc).status == 201)
        #expect(try await client.put("/p/_design/global", Self.global).status == 201)
        try await client.bulk("p", [
            ["_id": "a:1", "n": 1, "kind": "x"], ["_id": "a:2", "n": 2, "kind": "y"], ["_id": "a:3", "n": 3, "kind": "x"],
            ["_id": "b:1", "n": 4, "kind": "x"], ["_id": "b:2", "n": 5, "kind": "y"], ["_id": "c:1", "n": 6, "kind": "z"],
        ])
    }

    func ids(_ answer: JSONValue) -> [JSONValue?] { answer["rows"]?.arrayValue?.map { $0["id"] } ?? [] }

    @Test func aPartitionedViewIsQueriedOnePartitionAtATimeItsRowsConfinedToIt() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let missing = try await client.get("/p/_design/app/_view/by_n")
            missing.expectCouchError(400, "query_parse_error", "`partition` parameter is mandatory for queries to this view.")

            let b = try await client.get("/p/_partition/b/_design/app/_view/by_n").json
            #expect(ids(b) == ["b:1", "b:2"])
            // total_rows is the whole view's; offset counts the rows of the partitions sorting before b.
            #expect(b["total_rows"] == 6 && b["offset"] == 3)
            let descending = try await client.get("/p/_partition/b/_design/app/_view/by_n?descending=true").json
            #expect(ids(descending) == ["b:2", "b:1"] && descending["offset"] == 1)
            let ranged = try await client.get("/p/_partition/a/_design/app/_view/by_n?startkey=2&endkey=5").json
            #expect(ids(ranged) == ["a:2", "a:3"] && ranged["offset"] == 1)
            let keyed = try await client.get("/p/_partition/a/_design/app/_view/by_n?keys=[3,4,1]").json
            #expect(ids(keyed) == ["a:3", "a:1"])

            // The same query through ?partition= on the global route.
            #expect(try await client.get("/p/_design/app/_view/by_n?partition=b").json == b)
        }
    }

    @Test func reductionsGroupWithinThePartitionWithoutItsName() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let grouped = try await client.get("/p/_partition/a/_design/app/_view/kinds?group=true").json
            #expect(grouped["rows"] == [["key": "x", "value": 2], ["key": "y", "value": 1]])
            let total = try await client.get("/p/_partition/b/_design/app/_view/kinds").json
            #expect(total["rows"] == [["key": .null, "value": 2]])
        }
    }

    @Test func theDesignDocumentsOptionDecidesAndAGlobalViewRefusesAPartition() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let all = try await client.get("/p/_design/global/_view/by_n").json
            #expect(all["total_rows"] == 6 && ids(all).count == 6)
            for path in ["/p/_design/global/_view/by_n?partition=a", "/p/_partition/a/_design/global/_view/by_n"] {
                let refused = try await client.get(path)
                #expect(refused.status == 400, "\(path)")
                #expect(refused.json == ["error": "query_parse_error", "reason": "`partition` parameter is not supported in this design doc"])
            }
            // A shard's `update_options` never reaches the clustered `_info` (`fabric_group_info:merge_results/1`).
            let explicit: JSONValue = ["_id": "_design/explicit", "options": ["partitioned": true], "views": ["v": ["map": "function (doc) { emit(1); }"]]]
            #expect(try await client.put("/p/_design/explicit", explicit).status == 201)
            for name in ["explicit", "app", "global"] {
                let info = try await client.get("/p/_design/\(name)/_info").json["view_index"]
                #expect(info?["signature"] != nil && info?["update_options"] == nil, "\(name)")
            }
        }
    }

    @Test func thePathsPartitionWinsOverTheBodyAndAnyRepeatInTheQueryString() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let posted = try await client.post("/p/_partition/a/_design/app/_view/by_n", ["partition": "b", "limit": 5])
            #expect(ids(posted.json) == ["a:1", "a:2", "a:3"])
            let repeated = try await client.get("/p/_partition/a/_design/app/_view/by_n?partition=a&partition=b")
            #expect(repeated.status == 200 && ids(repeated.json) == ["a:1", "a:2", "a:3"])
            // Below a partition the query string is handed on sorted by name (lists:ukeysort), so `key` is read
            // before `startkey` there; on the database's own route they are read as written.
            let sorted = try await client.get("/p/_partition/a/_design/app/_view/by_n?startkey=1&key=2")
            #expect(ids(sorted.json) == ["a:1", "a:2"])
            let asWritten = try await client.get("/p/_design/app/_view/by_n?startkey=1&key=2&partition=a")
            #expect(ids(asWritten.json) == ["a:2"])
            let conflicting = try await client.get("/p/_partition/a/_design/app/_view/by_n?partition=b")
            conflicting.expectCouchError(400, "bad_request", "Conflicting value for `partition` in query string")
        }
    }

    @Test func aListUnderAPartitionReadsThatPartitionsRows() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let listed = try await client.get("/p/_partition/b/_design/app/_list/ids/by_n")
            #expect(listed.status == 200, "\(listed.text)")
            #expect(listed.text == "b:1,b:2")
        }
    }

    @Test func anActionNoDesignHandlerTakesIsAnAttachmentPathUnderAPartitionToo() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let unknown = try await client.get("/p/_partition/a/_design/app/_foo")
            unknown.expectCouchError(404, "not_found", "Document is missing attachment")
            let noDesign = try await client.get("/p/_partition/a/_design/none/_foo")
            noDesign.expectCouchError(404, "not_found", "missing")
            // Not below `_design/{name}/_…`: no route at all.
            #expect(try await client.get("/p/_partition/a/_design/app").json == ["error": "not_found", "reason": "missing"])
        }
    }

    @Test func savingADesignDocumentChecksPartitioningBeforeItsReducesAndOnlyInLanguagesCouchDBRuns() async throws {
        try await withDesignServer { _, client in
            let both: JSONValue = ["options": ["partitioned": true], "views": ["v": ["map": "function (doc) {}", "reduce": "_bogus"]]]
            let refused = try await client.put("/db/_design/both", both)
            refused.expectCouchError(400, "invalid_design_doc", "partitioned option cannot be true in a non-partitioned database.")
            let badRank = try await client.put("/db/_design/rank", ["views": ["v": ["map": "function (doc) {}", "reduce": "_top_x"]]])
            #expect(badRank.json == ["error": "invalid_design_doc", "reason": "invalid rank reducer"])
            let outOfRange = try await client.put("/db/_design/range", ["views": ["v": ["map": "function (doc) {}", "reduce": "_bottom_0"]]])
            #expect(outOfRange.json == ["error": "invalid_design_doc", "reason": "rank value must be between 1 and 100"])
            // A language CouchDB does not run is stored unchecked, as couch_mrview:validate lets it through.
            let other: JSONValue = ["language": "python", "views": ["v": ["map": "def f(doc): pass", "reduce": "_bogus"]]]
            #expect(try await client.put("/db/_design/other", other).status == 201)
        }
    }
}
