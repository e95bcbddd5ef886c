import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("_find, _explain and _index over HTTP, as CouchDB 3.5 serves them")
struct MangoEndpointTests {
    func seeded(_ client: TestClient) async throws {
        _ = try await client.send("PUT", "/db")
        let docs: [JSONValue] = (1...6).map { ["_id": .string("d\($0)"), "age": .number(JSONNumber($0 * 10)), "name": .string("n\($0)")] }
        _ = try await client.post("/db/_bulk_docs", ["docs": .array(docs)])
    }

    @Test func useIndexNullAndCouchDBsErrorNamesAreHonoured() async throws {
        try await withLiveServer { server in
            let client = server.admin
            try await seeded(client)
            let found = try await client.post("/db/_find", ["selector": ["age": ["$gt": 30]], "use_index": nil, "r": 1])
            #expect(found.status == 200 && found.json["docs"]?.arrayValue?.count == 3)
            let notObject = try await client.send("POST", "/db/_find", body: Data("[1]".utf8), contentType: "application/json")
            #expect(notObject.status == 400 && notObject.json["error"] == "bad_request")
            let limit = try await client.post("/db/_find", ["selector": [:], "limit": -1])
            #expect(limit.json["error"] == "invalid_non_neg_integer")
            let bookmark = try await client.post("/db/_find", ["selector": [:], "bookmark": "bad-bookmark"])
            #expect(bookmark.json == ["error": "invalid_bookmark", "reason": "Invalid bookmark value: \"bad-bookmark\""])
        }
    }

    @Test func aSortNoIndexServesIsRefusedOnceTheDatabaseHasIndexes() async throws {
        try await withLiveServer { server in
            let client = server.admin
            try await seeded(client)
            // No index at all: sorted in memory, a deliberate difference from CouchDB.
            let sorted = try await client.post("/db/_find", ["selector": [:], "sort": [["name": "desc"]], "fields": ["_id"]])
            #expect(sorted.json["docs"]?.arrayValue?.first?["_id"] == "d6")
            _ = try await client.post("/db/_index", ["index": ["fields": ["age"]], "ddoc": "age", "name": "age"])
            let refused = try await client.post("/db/_find", ["selector": [:], "sort": [["name": "desc"]]])
            #expect(refused.status == 400 && refused.json["error"] == "no_usable_index")
            let explained = try await client.post("/db/_explain", ["selector": [:], "sort": [["name": "desc"]]])
            #expect(explained.status == 200 && explained.json["index"] == .some(.null))
            let served = try await client.post("/db/_find", ["selector": ["age": ["$gt": 0]], "sort": ["age"], "limit": 2])
            #expect(served.json["docs"]?.arrayValue?.map { $0["_id"] } == ["d1", "d2"])
        }
    }

    @Test func indexURLsAnswer404Or405AsCouchDB() async throws {
        try await withLiveServer { server in
            let client = server.admin
            try await seeded(client)
            _ = try await client.post("/db/_index", ["index": ["fields": ["age"]], "ddoc": "dd", "name": "idx"])
            for path in ["/db/_index/a", "/db/_index/a/b", "/db/_index/a/b/c/d", "/db/_index/a/b/c/d/e"] {
                for method in ["GET", "PUT", "POST", "DELETE", "COPY", "OPTIONS"] {
                    #expect(try await client.send(method, path).status == 404, "\(method) \(path)")
                }
            }
            #expect(try await client.get("/db/_index/_bulk_delete").status == 405)
            #expect(try await client.get("/db/_index/dd/json/idx").status == 405)
            #expect(try await client.get("/db/_index/_design/dd/json/idx").status == 405)
            // Parameters may be separated by `;`, as CouchDB's parser allows.
            let listed = try await client.get("/db/_index?limit=1;skip=1").json
            #expect(listed["indexes"]?.arrayValue?.map { $0["name"] } == ["idx"])
            #expect(try await client.get("/db/_index?limit=0").status == 500)
            let info = try await client.get("/db/_design/dd/_info")
            #expect(info.json["name"] == "dd" && info.json["view_index"]?["language"] == "query")
            #expect(try await client.delete("/db/_index/dd/json/nope").json == ["error": "not_found", "reason": "missing"])
        }
    }

    /// `mango_opts:validate_bulk_delete/1` first, then `success` and `fail` built by prepending, as CouchDB's
    /// handler builds them.
    @Test func bulkDeleteChecksItsBodyAsCouchDBAndListsTheLastEntryFirst() async throws {
        try await withLiveServer { server in
            let client = server.admin
            try await seeded(client)
            for ddoc in ["a", "c"] {
                _ = try await client.post("/db/_index", ["index": ["fields": ["age"]], "ddoc": .string(ddoc), "name": "i"])
            }
            let refusals: [(JSONValue, JSONValue)] = [
                ([:], ["error": "missing_required_key", "reason": "Missing required key: docids"]),
                (["docids": "x"], ["error": "invalid_bulk_docs", "reason": "Bulk Delete requires an array of non-null docids. Docids: <<\"x\">>"]),
                (["docids": ["x", 5]], ["error": "invalid_index_name", "reason": "Invalid index name: 5"]),
                (["docids": ["a/b/c/d"]], ["error": "invalid_index_name", "reason": "Invalid index name: <<\"a/b/c/d\">>"]),
                (["docids": ["nope"], "w": "x"], ["error": "invalid_pos_integer", "reason": "<<\"x\">> is not an integer greater than zero"]),
                (["docids": ["nope"], "other": 1], ["error": "invalid_key", "reason": "Invalid key other for this request."]),
            ]
            for (body, expected) in refusals {
                let answer = try await client.post("/db/_index/_bulk_delete", body)
                #expect(answer.status == 400 && answer.json == expected, "\(body)")
            }
            let deleted = try await client.post("/db/_index/_bulk_delete", ["docids": ["a", "_design/c", "zz"], "w": 3])
            #expect(deleted.status == 200)
            #expect(deleted.json == [
                "success": [["id": "_design/c", "ok": true], ["id": "_design/a", "ok": true]],
                "fail": [["id": "_design/zz", "error": "not_found"]],
            ])
        }
    }

    /// `mango_opts:is_string/1` and `couch_doc:validate_docid/2` answer these, not the index checks.
    @Test func indexOptionsOfTheWrongTypeAndTheBareDesignPrefixAreRefusedWithCouchDBsNames() async throws {
        try await withLiveServer { server in
            let client = server.admin
            try await seeded(client)
            let refusals: [(JSONValue, JSONValue)] = [
                (["index": ["fields": ["age"]], "type": 5], ["error": "invalid_string", "reason": "Invalid string: 5"]),
                (["index": ["fields": ["age"]], "name": ["x"]], ["error": "invalid_string", "reason": "Invalid string: [<<\"x\">>]"]),
                (["index": ["fields": ["age"]], "ddoc": "_design/"], ["error": "illegal_docid", "reason": "Illegal document id `_design/`"]),
            ]
            for (body, expected) in refusals {
                let answer = try await client.post("/db/_index", body)
                #expect(answer.status == 400 && answer.json == expected, "\(body)")
            }
        }
    }
}
