import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `_all_docs`, `_design_docs` and `_local_docs` read and check their parameters as a view's
/// (`couch_mrview_http:parse_body_and_query`, `couch_mrview_util:validate_all_docs_args`), and answer keys as
/// `fabric_view_all_docs` does.
@Suite("All-documents parameters over HTTP")
struct AllDocsParameterTests {
    private func ids(_ answer: JSONValue) -> [String] {
        answer["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    private func seed(_ client: TestClient) async throws {
        let docs: JSONValue = ["docs": .array(["a", "b", "c", "m", "z", "_design/one", "_design/two"].map { ["_id": .string($0)] })]
        #expect(try await client.post("/db/_bulk_docs", docs).status == 201)
    }

    @Test func whatAMapViewRefusesIsRefusedWithCouchDBsReason() async throws {
        try await withLiveDatabase { _, client in
            try await seed(client)
            let refused: [(String, String)] = [
                ("reduce=true", "Reduce is invalid for map-only views."),
                ("group=true", "Invalid use of grouping on a map view."),
                ("group_level=1", "Invalid use of grouping on a map view."),
                ("keys=%5B%22a%22,%22b%22%5D&startkey=%22a%22", "`keys` is incompatible with `key`, `start_key` and `end_key`"),
                ("stale=bad", "Invalid value for `stale`."),
                ("update=x", "Invalid value for `update`."),
                ("sorted=x", "Invalid boolean parameter: \"x\""),
                ("group_level=-1", "Invalid value for positive integer: \"-1\""),
                ("partition=p", "`partition` parameter is not supported on this db"),
            ]
            for (parameters, reason) in refused {
                for path in ["_all_docs", "_design_docs", "_local_docs"] {
                    try await client.get("/db/\(path)?\(parameters)").expectCouchError(400, "query_parse_error", reason)
                }
            }
            // A body's integers must be integers: `parse_int` refuses a string's binary and a float.
            try await client.post("/db/_all_docs", ["limit": "2"])
                .expectCouchError(400, "query_parse_error", "Invalid value for integer: <<\"2\">>")
            for (body, printed) in [(#"{"skip":1.0}"#, "1.0"), (#"{"limit":1000.0}"#, "1.0e3"), (#"{"limit":2.5}"#, "2.5")] {
                try await client.send("POST", "/db/_all_docs", body: Data(body.utf8), contentType: "application/json")
                    .expectCouchError(400, "query_parse_error", "Invalid value for integer: \(printed)")
            }
            #expect(ids(try await client.post("/db/_all_docs", ["limit": 2]).json) == ["_design/one", "_design/two"])
        }
    }

    @Test func keysThatAreNotAListAreRefusedInTheWordsOfWhereTheyCameFrom() async throws {
        try await withLiveDatabase { _, client in
            try await client.get("/db/_all_docs?keys=5").expectCouchError(400, "bad_request", "`keys` parameter must be an array.")
            try await client.post("/db/_all_docs", ["keys": 5]).expectCouchError(400, "bad_request", "`keys` body member must be an array.")
            // A POST's query-string `keys` is a parameter like any other (`validate_args`).
            try await client.post("/db/_all_docs?keys=5", .object([:]))
                .expectCouchError(400, "query_parse_error", "`keys` must be an array of strings.")
        }
    }

    @Test func aRangeIsBoundedByKeysElseByDocumentIDsAndTheLastSynonymWins() async throws {
        try await withLiveDatabase { _, client in
            try await seed(client)
            // `ad_skey_opts`/`ad_ekey_opts`: with no key bound, the id bounds bound the range, and `offset` counts
            // the rows before it.
            let fromM = try await client.get("/db/_all_docs?startkey_docid=m").json
            #expect(ids(fromM) == ["m", "z"] && fromM["offset"] == 5)
            #expect(ids(try await client.get("/db/_all_docs?endkey_docid=b&inclusive_end=false").json) == ["_design/one", "_design/two", "a"])
            // A key bound wins over an id bound.
            #expect(ids(try await client.get("/db/_all_docs?startkey=%22z%22&startkey_docid=a").json) == ["z"])
            // `key` is a range of one, and `inclusive_end=false` empties it.
            #expect(ids(try await client.get("/db/_all_docs?key=%22a%22").json) == ["a"])
            #expect(ids(try await client.get("/db/_all_docs?key=%22a%22&inclusive_end=false").json) == [])
            // Parameters are read in order: the later of two synonyms wins.
            #expect(ids(try await client.get("/db/_all_docs?startkey=%22a%22&start_key=%22m%22").json) == ["m", "z"])
            #expect(ids(try await client.get("/db/_all_docs?end_key=%22a%22&endkey=%22b%22&startkey=%22a%22").json) == ["a", "b"])
        }
    }

    @Test func keysAreSkippedAndLimitedBeforeTheNamespaceKeepsItsOwn() async throws {
        try await withLiveDatabase { _, client in
            try await seed(client)
            #expect(try await client.put("/db/_local/one", ["v": 1]).status == 201)
            #expect(try await client.put("/db/_local/two", ["v": 2]).status == 201)
            // `_design_docs` keeps only design ids of the keys, and counts the design documents.
            let design = try await client.post("/db/_design_docs", ["keys": ["a", "_design/two", "_local/one"]]).json
            #expect(ids(design) == ["_design/two"])
            #expect(design["total_rows"] == 2 && design["offset"] == .null)
            // Skip and limit count the keys as sent, before the others are dropped.
            let skipped = try await client.post("/db/_design_docs?skip=1&limit=1", ["keys": ["_design/one", "a", "_design/two"]]).json
            #expect(skipped["rows"]?.arrayValue == [])
            // A keyed list has no sequence to report: `update_seq` is null.
            let keyed = try await client.post("/db/_all_docs?update_seq=true", ["keys": ["a"]]).json
            #expect(keyed["update_seq"] == .null && keyed.objectValue?.keys.contains("update_seq") == true)
            #expect(try await client.get("/db/_all_docs?update_seq=true").json["update_seq"]?.stringValue != nil)
            // Descending lists the keys backwards, `_local_docs` included.
            let local = try await client.post("/db/_local_docs?descending=true", ["keys": ["_local/one", "_local/two"]]).json
            #expect(ids(local) == ["_local/two", "_local/one"])
        }
    }

    @Test func queriesAreAnsweredInTurnEachWithItsOwnKeys() async throws {
        try await withLiveDatabase { _, client in
            try await seed(client)
            let body: JSONValue = ["queries": [["keys": ["a", "b"]], ["limit": 2, "skip": 1], ["startkey": "m", "update_seq": true]]]
            let answer = try await client.post("/db/_all_docs/queries?descending=false", body)
            #expect(answer.status == 200)
            let results = answer.json["results"]?.arrayValue ?? []
            #expect(results.map(ids) == [["a", "b"], ["_design/two", "a"], ["m", "z"]])
            #expect(results[1]["offset"] == 1 && results[1]["total_rows"] == 7)
            #expect(results[2]["update_seq"]?.stringValue != nil)
            let design = try await client.post("/db/_design_docs/queries", ["queries": [.object([:]), ["keys": ["_design/one", "a"]]]]).json
            #expect((design["results"]?.arrayValue ?? []).map(ids) == [["_design/one", "_design/two"], ["_design/one"]])
            let get = try await client.get("/db/_all_docs/queries")
            #expect(get.status == 405 && get.header("Allow") == "POST")
            try await client.post("/db/_all_docs/queries", .object([:]))
                .expectCouchError(400, "bad_request", "POST body must include `queries` parameter.")
            try await client.post("/db/_all_docs/queries", ["queries": 1])
                .expectCouchError(400, "bad_request", "`queries` member must be an array.")
            try await client.post("/db/_all_docs/queries", ["queries": [["reduce": true]]])
                .expectCouchError(400, "query_parse_error", "Reduce is invalid for map-only views.")
        }
    }

    @Test func aPartitionParameterHoldsAPartitionedDatabasesListToThePartition() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let created = try await client.send("PUT", "/pdb?partitioned=true")
            #expect(created.status == 201)
            let docs: JSONValue = ["docs": .array(["p:a", "p:b", "q:a", "r:a"].map { ["_id": .string($0)] })]
            let written = try await client.post("/pdb/_bulk_docs", docs)
            #expect(written.status == 201)
            let expected: [(String, [String])] = [
                ("partition=p", ["p:a", "p:b"]),
                ("partition=q&descending=true", ["q:a"]),
                // A bound inside the partition is kept; one outside is held to it.
                ("partition=p&startkey=%22p:b%22", ["p:b"]),
                ("partition=p&endkey=%22z%22", ["p:a", "p:b"]),
            ]
            for (parameters, rows) in expected {
                let answer = try await client.get("/pdb/_all_docs?\(parameters)").json
                #expect(ids(answer) == rows, "\(parameters)")
            }
        }
    }
}
