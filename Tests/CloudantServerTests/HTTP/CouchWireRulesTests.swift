import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// The wire details clients of CouchDB 3.5 rely on, each checked as a client sees them.
@Suite("CouchDB wire rules")
struct CouchWireRulesTests {
    /// CouchDB refuses a JSON endpoint posted without `application/json` (415), so a client that forgets the
    /// header fails here as it would against CouchDB (`couch_httpd:validate_ctype`).
    @Test func jsonEndpointsRefuseOtherMediaTypesWith415() async throws {
        try await withLiveDatabase { _, client in
            let endpoints = [
                "/db/_ensure_full_commit", "/db/_bulk_docs", "/db", "/db/_revs_diff", "/db/_bulk_get", "/db/_changes",
                "/db/_all_docs", "/db/_find", "/db/_explain", "/db/_index",
            ]
            for path in endpoints {
                for contentType in [nil, "text/plain", "Application/JSON"] as [String?] {
                    let answer = try await client.send("POST", path, body: Data("{}".utf8), contentType: contentType)
                    #expect(answer.status == 415, "\(path) with \(contentType ?? "no content type")")
                    #expect(answer.json["error"] == "bad_content_type")
                }
            }
            let charset = try await client.send(
                "POST", "/db/_ensure_full_commit", body: Data("{}".utf8), contentType: "application/json; charset=utf-8")
            #expect(charset.status == 201)
            #expect(charset.json["ok"] == true)
        }
    }

    /// A `/_…` path no server handler claims is a database path, as `chttpd` hands it to
    /// `chttpd_db:handle_request/1`: for a server admin `GET /_config` (a CouchDB 1.x endpoint) is a database
    /// that does not exist and `PUT /_config` an illegal database name; anyone else is refused first, as
    /// `server_authorization_check/1` wants an admin for every `/_…` path but a few (`/_stats` is one of them).
    @Test func anUnclaimedUnderscorePathIsADatabasePathAsInCouchDB() async throws {
        try await withLiveServer { server in
            let admin = server.admin
            for path in ["/_config", "/_config/couchdb", "/_stats", "/_restart", "/_plugins/x/y"] {
                // A document is posted to a database (`POST /{db}`), as JSON.
                for method in ["GET", "DELETE"] + (path.dropFirst().contains("/") ? [] : ["POST"]) {
                    let answer = try await admin.send(method, path, json: method == "POST" ? ["a": 1] : nil)
                    #expect(answer.status == 404, "\(method) \(path)")
                    #expect(answer.json == ["error": "not_found", "reason": "Database does not exist."], "\(method) \(path)")
                }
            }
            let create = try await admin.send("PUT", "/_config")
            #expect(create.status == 400)
            #expect(create.json["error"] == "illegal_database_name")
            #expect(create.json["reason"] == .string(
                "Name: '_config'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter."))
            let anonymous = try await server.anonymous.send("GET", "/_config")
            anonymous.expectCouchError(401, "unauthorized", "You are not a server admin.")
            let stats = try await server.anonymous.send("GET", "/_stats")
            #expect(stats.status == 404)
        }
    }

    /// `ETag` where CouchDB sends one: a document read as stored, a `PUT` (also `new_edits=false`), a
    /// `DELETE`; not a `POST`, nor a read carrying request-time metadata (`_conflicts`, `_revs_info`,
    /// `_local_seq`) or `open_revs`. `Location` is an absolute URI with the id percent-encoded.
    @Test func etagAndLocationAreSentExactlyWhereCouchDBSendsThem() async throws {
        try await withLiveDatabase { _, client in
            let posted = try await client.post("/db", ["_id": "p"])
            #expect(posted.status == 201)
            #expect(posted.header("ETag") == nil)
            #expect(posted.header("Location") == "http://127.0.0.1/db/p")

            let put = try await client.put("/db/a%20b", ["v": 1])
            let rev = try #require(put.json["rev"]?.stringValue)
            #expect(put.header("ETag") == "\"\(rev)\"")
            #expect(put.header("Location") == "http://127.0.0.1/db/a%20b")
            #expect(try await client.get("/db/a%20b").header("ETag") == "\"\(rev)\"")
            #expect(try await client.get("/db/a%20b?revs=true").header("ETag") == "\"\(rev)\"")
            // No conflicts to show: the answer is the stored document, so CouchDB still sends the ETag.
            #expect(try await client.get("/db/a%20b?conflicts=true").header("ETag") == "\"\(rev)\"")
            for query in ["revs_info=true", "local_seq=true", "meta=true", "open_revs=all"] {
                #expect(try await client.get("/db/a%20b?\(query)").header("ETag") == nil, "\(query)")
            }
            let replicated = try await client.put("/db/r?new_edits=false", ["_rev": "3-abc", "v": 1])
            #expect(replicated.status == 201)
            #expect(replicated.json["rev"] == "3-abc")
            #expect(replicated.header("ETag") == "\"3-abc\"")
            #expect(replicated.header("Location") == "http://127.0.0.1/db/r")

            let design = try await client.put("/db/_design/app", ["language": "javascript"])
            #expect(design.header("Location") == "http://127.0.0.1/db/_design%2Fapp")
            let local = try await client.put("/db/_local/cp", ["seq": 1])
            #expect(local.header("Location") == "http://127.0.0.1/db/_local%2Fcp")
            // A local document's ETag is a digest of it, not its `0-N` revision.
            #expect(local.header("ETag")?.hasPrefix("\"0-") == false)
        }
    }

    /// `batch=ok` answers 202 with no revision, as CouchDB does; the write is nonetheless durable here.
    @Test func batchOkAnswers202WithoutARevision() async throws {
        try await withLiveDatabase { _, client in
            let put = try await client.send("PUT", "/db/a?batch=ok", json: ["v": 1])
            #expect(put.status == 202)
            #expect(put.json == ["ok": true, "id": "a"])
            #expect(put.header("ETag") == nil && put.header("Location") == nil)
            let post = try await client.send("POST", "/db?batch=ok", json: ["_id": "b", "v": 2])
            #expect(post.json == ["ok": true, "id": "b"])
            #expect(try await client.get("/db/a").json["v"] == 1)
            #expect(try await client.get("/db/b").json["v"] == 2)
            // A bad document is still refused at once.
            #expect(try await client.send("PUT", "/db/c?batch=ok", json: ["_bad": 1]).status == 400)
        }
    }

    @Test func allDocsReportsOffsetsAsCouchDBCountsThem() async throws {
        try await withLiveDatabase { _, client in
            let docs = JSONValue.array((0..<10).map { ["_id": .string("d\($0)")] })
            _ = try await client.post("/db/_bulk_docs", ["docs": docs])
            #expect(try await client.get("/db/_all_docs?skip=2&limit=2").json["offset"] == 2)
            #expect(try await client.get("/db/_all_docs?startkey=%22d3%22&skip=2&limit=2").json["offset"] == 5)
            #expect(try await client.get("/db/_all_docs?descending=true&startkey=%22d3%22&skip=1&limit=1").json["offset"] == 7)
            #expect(try await client.get("/db/_all_docs?startkey=%22d3%22&skip=20").json["offset"] == 10)
            #expect(try await client.get("/db/_all_docs?key=%22d1%22").json["offset"] == 1)
            let keyed = try await client.post("/db/_all_docs", ["keys": ["d1", ["d", [50]], 7]]).json
            #expect(keyed["offset"] == .null)
            // Keys are looked up as CouchDB looks them up (iolists): ["d", [50]] is the id "d2", echoed as sent.
            let rows = try #require(keyed["rows"]?.arrayValue)
            #expect(rows[1]["id"] == ["d", [50]])
            #expect(rows[1]["value"]?["rev"] != nil)
            #expect(rows[2] == ["key": 7, "error": "not_found"])
            let reversed = try await client.post("/db/_all_docs?descending=true", ["keys": ["d1", "d2"]]).json
            #expect(reversed["rows"]?.arrayValue?.map { $0["id"] } == ["d2", "d1"])
            #expect(try await client.get("/db/_all_docs?update_seq=true&limit=0").json["update_seq"] != nil)
        }
    }

    @Test func databaseInfoCarriesPropsAndCluster() async throws {
        try await withLiveDatabase { _, client in
            let info = try await client.get("/db").json
            #expect(info["props"] == .object(JSONObject()))
            #expect(info["cluster"] == ["q": 1, "n": 1, "w": 1, "r": 1])
        }
    }

    @Test func documentsAndDesignDocumentsAreValidatedWithCouchDBsErrorNames() async throws {
        try await withLiveDatabase { _, client in
            for body: JSONValue in [["_foo": 1], ["_attachments": "x"], ["_deleted": "yes"], ["_revisions": 1]] {
                let answer = try await client.put("/db/x", body)
                #expect(answer.status == 400)
                #expect(answer.json["error"] == "doc_validation", "\(body)")
            }
            let notObject = try await client.send("PUT", "/db/x", json: [1, 2])
            #expect(notObject.json == ["error": "bad_request", "reason": "Document must be a JSON object"])
            let design = try await client.put("/db/_design/bad", ["views": ["v": ["reduce": "_sum"]]])
            design.expectCouchError(400, "invalid_design_doc", "View `v` must contain map function")
            let missingRev = try await client.post("/db/_bulk_docs", ["docs": [["_id": "a"]], "new_edits": false])
            #expect(missingRev.status == 400)
            #expect(missingRev.json["error"] == "bad_request")
        }
    }

    /// `_bulk_get` answers revisions in CouchDB's tree order (the last root first), a bad entry with the
    /// `id` and `rev` CouchDB names (null when the entry has no id), a missing document with "undefined".
    @Test func bulkGetOrdersLeavesAndReportsErrorsAsCouchDB() async throws {
        try await withLiveDatabase { _, client in
            let a = String(repeating: "a", count: 32)
            let b = String(repeating: "b", count: 32)
            let docs: JSONValue = [
                ["_id": "x", "_revisions": ["start": 3, "ids": [.string(a), "1111", "0000"]]],
                ["_id": "x", "_revisions": ["start": 2, "ids": [.string(b), "0000"]]],
            ]
            #expect(try await client.post("/db/_bulk_docs", ["docs": docs, "new_edits": false]).json == [])
            let answer = try await client.post(
                "/db/_bulk_get", ["docs": [["id": "x"], ["rev": "1-a"], ["id": "x", "rev": "nope"], ["id": "zz"]]]
            ).json
            let results = try #require(answer["results"]?.arrayValue)
            // "1111" sorts before "b…" (bytes 0x31 < 0x62), so 3-a… (below 2-1111) comes first.
            #expect(results[0]["docs"]?.arrayValue?.map { $0["ok"]?["_rev"] } == [.string("3-\(a)"), .string("2-\(b)")])
            let errors = results.dropFirst().map { $0["docs"]?.arrayValue?.first?["error"] }
            #expect(errors[0] == ["id": .null, "rev": .null, "error": "bad_request", "reason": "document id missed"])
            #expect(errors[1]?["rev"] == "nope")
            #expect(errors[2]?["rev"] == "undefined")
            // open_revs=all sorts by generation.
            let all = try await client.get("/db/x?open_revs=all", headers: ["Accept": "application/json"]).json.arrayValue?.map { $0["ok"]?["_rev"] }
            #expect(all == [.string("2-\(b)"), .string("3-\(a)")])
        }
    }

    @Test func integersBeyond64BitsAreWrittenBackAsSent() async throws {
        try await withLiveDatabase { _, client in
            _ = try await client.send("PUT", "/db/n", body: Data(#"{"big":12345678901234567890,"neg":-98765432109876543210}"#.utf8))
            let text = try await client.get("/db/n").text
            #expect(text.contains(#""big":12345678901234567890,"neg":-98765432109876543210"#))
        }
    }
}
