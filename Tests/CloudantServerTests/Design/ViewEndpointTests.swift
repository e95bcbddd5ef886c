import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Views over HTTP (chttpd_view)")
struct ViewEndpointTests {
    let ddoc: JSONValue = [
        "_id": "_design/app", "language": "javascript",
        "views": [
            "by_n": ["map": "function(doc) { if (doc.n) emit(doc.n, doc.n * 10); }"],
            "total": ["map": "function(doc) { if (doc.n) emit([doc.n % 2, doc.n], doc.n); }", "reduce": "_sum"],
        ],
    ]

    func filled(_ client: TestClient) async throws { try await client.storeApp(ddoc, documents: 6) }

    @Test func getAnswersWithCouchDBsShape() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let answer = try await client.get("/db/_design/app/_view/by_n?startkey=2&limit=2&update_seq=true")
            #expect(answer.status == 200)
            #expect(answer.json["total_rows"] == 6 && answer.json["offset"] == 1)
            #expect(answer.json["rows"] == [["id": "d2", "key": 2, "value": 20], ["id": "d3", "key": 3, "value": 30]])
            #expect(answer.json["update_seq"]?.stringValue.flatMap(UpdateSequence.parse) != nil, "an opaque sequence, as CouchDB 3 answers")
            #expect(answer.json.objectValue?.members.map(\.key) == ["total_rows", "offset", "update_seq", "rows"])
        }
    }

    @Test func postTakesKeysAndParametersFromTheBodyTheQueryStringWinning() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let answer = try await client.post("/db/_design/app/_view/by_n?limit=1", ["keys": [5, 3], "limit": 10])
            #expect(answer.json["rows"]?.arrayValue?.map { $0["key"] } == [5])
            let bad = try await client.post("/db/_design/app/_view/by_n", ["keys": 1])
            #expect(bad.status == 400 && bad.json == ["error": "bad_request", "reason": "`keys` member must be an array."])
            let queries = try await client.post("/db/_design/app/_view/by_n", ["queries": []])
            #expect(queries.json["reason"] == "The `queries` parameter is no longer supported at this endpoint")
        }
    }

    @Test func multipleQueriesAnswerEachInResults() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let answer = try await client.post(
                "/db/_design/app/_view/total/queries",
                ["queries": [["group_level": 1], ["reduce": false, "limit": 1], ["keys": [[1, 1]], "group": true]]])
            let results = try #require(answer.json["results"]?.arrayValue)
            #expect(results.count == 3)
            #expect(results[0]["rows"] == [["key": [0], "value": 12], ["key": [1], "value": 9]])
            #expect(results[1]["rows"]?.arrayValue?.count == 1 && results[1]["total_rows"] == 6)
            #expect(results[2]["rows"] == [["key": [1, 1], "value": 1]])
            let missing = try await client.post("/db/_design/app/_view/total/queries", ["nothing": 1])
            #expect(missing.json["reason"] == "POST body must include `queries` parameter.")
            #expect(try await client.get("/db/_design/app/_view/total/queries").status == 405)
        }
    }

    @Test func errorsHaveCouchDBsNamesAndStatuses() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            let missingView = try await client.get("/db/_design/app/_view/nope")
            #expect(missingView.status == 404 && missingView.json == ["error": "not_found", "reason": "missing_named_view"])
            let missingDesign = try await client.get("/db/_design/none/_view/x")
            #expect(missingDesign.status == 404 && missingDesign.json["reason"] == "missing")
            let group = try await client.get("/db/_design/app/_view/by_n?group=true")
            #expect(group.status == 400 && group.json == ["error": "query_parse_error", "reason": "Invalid use of grouping on a map view."])
            let range = try await client.get("/db/_design/app/_view/by_n?startkey=5&endkey=1")
            #expect(range.json["error"] == "query_parse_error")
            #expect(try await client.get("/db/_temp_view").status == 410)
        }
    }

    @Test func infoCleanupAndCompaction() async throws {
        try await withDesignServer { _, client in
            try await filled(client)
            _ = try await client.get("/db/_design/app/_view/by_n")
            let info = try await client.get("/db/_design/app/_info")
            #expect(info.json["name"] == "app")
            #expect(info.json["view_index"]?["language"] == "javascript")
            #expect(info.json["view_index"]?["update_seq"] == 7)
            #expect(info.json["view_index"]?["signature"]?.stringValue?.count == 32)
            #expect(try await client.post("/db/_view_cleanup", [:]).status == 202)
            let compacted = try await client.post("/db/_compact/app", [:])
            #expect(compacted.status == 202 && compacted.json == ["ok": true])
            #expect(try await client.get("/db/_design/app/_view/by_n").json["total_rows"] == 6)
        }
    }

    @Test func aDesignDocumentThatDoesNotCompileIsRefusedWith400() async throws {
        try await withDesignServer { _, client in
            let answer = try await client.put("/db/_design/bad", ["views": ["v": ["map": "function(doc) { emit(; }"]]])
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "compilation_error")
        }
    }
}
