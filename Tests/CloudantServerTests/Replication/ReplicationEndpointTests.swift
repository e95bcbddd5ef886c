import CloudantCore
import Foundation
import Testing

@Suite("What replicators need")
struct ReplicationEndpointTests {
    @Test func revsDiffBulkGetAndNewEditsFalseRoundTripBetweenDatabases() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/source")
            _ = try await client.send("PUT", "/target")
            let rev1 = try #require(try await client.put("/source/a", ["v": 1]).json["rev"]?.stringValue)
            _ = try await client.put("/source/a?rev=\(rev1)", ["v": 2])
            _ = try await client.put("/source/b", ["v": 1])
            // One replication pass, as CouchDB's replicator makes it.
            let changes = try await client.get("/source/_changes?style=all_docs").json["results"]?.arrayValue ?? []
            var diffRequest = JSONObject()
            for change in changes {
                diffRequest[change["id"]?.stringValue ?? ""] = .array(change["changes"]?.arrayValue?.compactMap { $0["rev"] } ?? [])
            }
            let diff = try await client.post("/target/_revs_diff", .object(diffRequest)).json
            #expect(diff.objectValue?.keys.sorted() == ["a", "b"])
            let wanted: [JSONValue] = (diff.objectValue?.members ?? []).flatMap { id, entry in
                (entry["missing"]?.arrayValue ?? []).map { ["id": .string(id), "rev": $0] }
            }
            let fetched = try await client.post("/source/_bulk_get?revs=true&latest=true", ["docs": .array(wanted)]).json
            let docs = (fetched["results"]?.arrayValue ?? []).flatMap { $0["docs"]?.arrayValue ?? [] }.compactMap { $0["ok"] }
            #expect(docs.count == 2)
            #expect(docs.first?["_revisions"]?["start"] == 2)
            let written = try await client.post("/target/_bulk_docs", ["docs": .array(docs), "new_edits": false])
            #expect(written.status == 201)
            #expect(written.json == [])
            #expect(try await client.post("/target/_revs_diff", .object(diffRequest)).json == [:])
            #expect(try await client.get("/target/a?revs=true").json["_revisions"]?["ids"]?.arrayValue?.count == 2)
            let commit = try await client.send("POST", "/target/_ensure_full_commit", contentType: "application/json")
            #expect(commit.status == 201)
            #expect(commit.json == ["ok": true, "instance_start_time": "0"])
        }
    }

    @Test func bulkGetReportsUnknownDocumentsWithUndefinedRev() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            let answer = try await client.post("/db/_bulk_get", ["docs": [["id": "nope"], 7]]).json
            let first = answer["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["error"]
            #expect(first == ["id": "nope", "rev": "undefined", "error": "not_found", "reason": "missing"])
            #expect(answer["results"]?.arrayValue?.count == 2)
        }
    }

    @Test func bulkDocsRejectsABodyWithoutDocs() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let answer = try await server.admin.post("/db/_bulk_docs", ["documents": []])
            #expect(answer.json == ["error": "bad_request", "reason": "POST body must include `docs` parameter."])
        }
    }
}
