import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

@Suite("What replicators need")
struct ReplicationEndpointTests {
    @Test func revsDiffBulkGetAndNewEditsFalseRoundTripBetweenDatabases() async throws {
        try await withLiveDatabase("source") { _, client in
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
            let info = try await client.get("/target").json
            #expect(commit.json == ["ok": true, "instance_start_time": info["instance_start_time"] ?? .null])
        }
    }

    /// CouchDB's replicator moves documents with attachments one at a time: `open_revs` as multipart/mixed
    /// from the source, each leaf's `multipart/related` part uploaded as it is with `new_edits=false`.
    @Test func documentsWithAttachmentsTravelAsMultipartLikeCouchDBsReplicator() async throws {
        try await withLiveDatabase("source") { _, client in
            _ = try await client.send("PUT", "/target")
            // Binary bytes that also contain a line break and dashes, as a boundary line would.
            let binary = (0...255).map(UInt8.init) + Array("\r\n--\r\n".utf8)
            let attachments: JSONValue = [
                "notes.txt": ["content_type": "text/plain", "data": .string(Data("hello world".utf8).base64EncodedString())],
                "track.bin": ["content_type": "application/octet-stream", "data": .string(Data(binary).base64EncodedString())],
            ]
            let rev1 = try #require(try await client.put("/source/doc", ["title": "walk", "_attachments": attachments]).json["rev"]?.stringValue)
            let stubs: JSONValue = ["notes.txt": ["stub": true], "track.bin": ["stub": true]]
            let rev2 = try #require(
                try await client.put("/source/doc", ["_rev": .string(rev1), "title": "walk 2", "_attachments": stubs]).json["rev"]?.stringValue)

            try await replicate(client, rev: rev2, attsSince: nil)
            let source = try await client.get("/source/doc?revs=true").json
            #expect(try await client.get("/target/doc?revs=true").json == source)
            #expect(source["_revisions"]?["ids"]?.arrayValue?.count == 2)
            #expect(Array(try await client.get("/target/doc/track.bin").body) == binary)
            #expect(try await client.get("/target/doc/notes.txt").text == "hello world")
            #expect(try await client.post("/target/_revs_diff", ["doc": [.string(rev2)]]).json == [:])

            // The next pass names what the target has in atts_since: only stubs travel, and they resolve
            // against the target's copy of the attachments.
            let rev3 = try #require(
                try await client.put("/source/doc", ["_rev": .string(rev2), "title": "walk 3", "_attachments": stubs]).json["rev"]?.stringValue)
            try await replicate(client, rev: rev3, attsSince: rev2)
            #expect(try await client.get("/target/doc?revs=true").json == client.get("/source/doc?revs=true").json)
            #expect(Array(try await client.get("/target/doc/track.bin").body) == binary)
        }
    }

    /// One document's `_revs_diff`, multipart fetch and multipart upload, as couch_replicator does them.
    private func replicate(_ client: TestClient, rev: String, attsSince: String?) async throws {
        let diff = try await client.post("/target/_revs_diff", ["doc": [.string(rev)]]).json
        #expect(diff["doc"]?["missing"] == [.string(rev)])
        var path = "/source/doc?revs=true&latest=true&open_revs=%5B%22\(rev)%22%5D"
        if let attsSince { path += "&atts_since=%5B%22\(attsSince)%22%5D" }
        let leaves = try await client.get(path, headers: ["Accept": "multipart/mixed"]).parts()
        let leaf = try #require(leaves.first)
        #expect(leaves.count == 1)
        #expect(leaf.essence == (attsSince == nil ? "multipart/related" : "application/json"))
        let written = try await client.send(
            "PUT", "/target/doc?new_edits=false", body: Data(leaf.body), contentType: leaf.header("Content-Type"))
        #expect(written.status == 201)
        #expect(written.json["rev"] == .string(rev))
    }

    @Test func bulkGetReportsUnknownDocumentsWithUndefinedRev() async throws {
        try await withLiveDatabase { _, client in
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
