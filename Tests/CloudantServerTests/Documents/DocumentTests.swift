import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Documents over HTTP")
struct DocumentTests {
    @Test func documentsAreCreatedReadUpdatedAndDeleted() async throws {
        try await withLiveDatabase { _, client in
            let created = try await client.put("/db/walk", ["minutes": 20])
            #expect(created.status == 201)
            let rev1 = try #require(created.json["rev"]?.stringValue)
            #expect(created.header("ETag") == "\"\(rev1)\"")
            let read = try await client.get("/db/walk")
            #expect(read.json == ["_id": "walk", "_rev": .string(rev1), "minutes": 20])
            let updated = try await client.put("/db/walk?rev=\(rev1)", ["minutes": 25])
            let rev2 = try #require(updated.json["rev"]?.stringValue)
            #expect(rev2.hasPrefix("2-"))
            let posted = try await client.post("/db", ["kind": "note"])
            #expect(posted.status == 201)
            #expect(posted.json["id"]?.stringValue?.isEmpty == false)
            let deleted = try await client.delete("/db/walk?rev=\(rev2)")
            #expect(deleted.status == 200)
            let gone = try await client.get("/db/walk")
            gone.expectCouchError(404, "not_found", "deleted")
            #expect(try await client.get("/db/never").json == ["error": "not_found", "reason": "missing"])
        }
    }

    @Test func editingAStaleRevisionIsAConflict() async throws {
        try await withLiveDatabase { _, client in
            let rev1 = try #require(try await client.put("/db/a", ["v": 1]).json["rev"]?.stringValue)
            _ = try await client.put("/db/a?rev=\(rev1)", ["v": 2])
            let stale = try await client.put("/db/a", ["_rev": .string(rev1), "v": 3])
            stale.expectCouchError(409, "conflict", "Document update conflict.")
            #expect(try await client.put("/db/a", ["v": 4]).status == 409)
            #expect(try await client.delete("/db/a").status == 409)
        }
    }

    @Test func headAndIfNoneMatchUseTheRevisionAsETag() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/a", ["v": 1]).json["rev"]?.stringValue)
            let head = try await client.send("HEAD", "/db/a")
            #expect(head.status == 200)
            #expect(head.header("ETag") == "\"\(rev)\"")
            #expect(try await client.get("/db/a", headers: ["If-None-Match": "\"\(rev)\""]).status == 304)
        }
    }

    @Test func readParametersAddRevisionsConflictsAndOpenRevs() async throws {
        try await withLiveDatabase { _, client in
            let docs: JSONValue = [
                ["_id": "a", "_rev": "1-aaaa", "v": 1], ["_id": "a", "_rev": "1-bbbb", "v": 2],
            ]
            #expect(try await client.post("/db/_bulk_docs", ["docs": docs, "new_edits": false]).json == [])
            let doc = try await client.get("/db/a?conflicts=true&revs=true").json
            #expect(doc["_rev"] == "1-bbbb")
            #expect(doc["_conflicts"] == ["1-aaaa"])
            #expect(doc["_revisions"] == ["start": 1, "ids": ["bbbb"]])
            let all = try await client.get("/db/a?open_revs=all", headers: ["Accept": "application/json"]).json
            #expect(all.arrayValue?.count == 2)
            let some = try await client.get("/db/a?open_revs=%5B%221-aaaa%22,%221-zzzz%22%5D", headers: ["Accept": "application/json"]).json
            #expect(some == [["ok": ["_id": "a", "_rev": "1-aaaa", "v": 1]], ["missing": "1-zzzz"]])
            // Anything but `true` leaves a document option off (`chttpd_db:parse_doc_query/2` ignores the pair).
            #expect(try await client.get("/db/a?revs=maybe").json["_revisions"] == nil)
        }
    }

    @Test func localDocumentsAreLastWriterWinsAndStayOutOfChanges() async throws {
        try await withLiveDatabase { _, client in
            // CouchDB 3 numbers a local revision from the one written: without one it is 0-1 again.
            #expect(try await client.put("/db/_local/cp", ["seq": 1]).json["rev"] == "0-1")
            #expect(try await client.put("/db/_local/cp", ["seq": 2]).json["rev"] == "0-1")
            #expect(try await client.put("/db/_local/cp", ["_rev": "0-7", "seq": 3]).json["rev"] == "0-8")
            #expect(try await client.get("/db/_local/cp").json == ["_id": "_local/cp", "_rev": "0-8", "seq": 3])
            // CouchDB's replicator writes a checkpoint back with the `_revisions` it read from a local document.
            let checkpoint = try await client.put("/db/_local/cp", ["_revisions": ["start": 0, "ids": ["8"]], "seq": 4])
            #expect(checkpoint.json["rev"] == "0-9")
            #expect(try await client.get("/db/_changes").json["results"] == [])
            #expect(try await client.delete("/db/_local/cp").status == 200)
            #expect(try await client.get("/db/_local/cp").status == 404)
        }
    }

    @Test func allDocsReadsKeysRangesAndJSONEncodedParameters() async throws {
        try await withLiveDatabase { _, client in
            _ = try await client.post("/db/_bulk_docs", ["docs": [["_id": "a"], ["_id": "b"], ["_id": "c"]]])
            let range = try await client.get("/db/_all_docs?startkey=%22b%22&endkey=%22c%22&inclusive_end=false").json
            #expect(range["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
            let descending = try await client.get("/db/_all_docs?descending=true&limit=2&skip=1").json
            #expect(descending["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b", "a"])
            let keyed = try await client.post("/db/_all_docs", ["keys": ["c", "zz", 5]]).json
            #expect(keyed["rows"]?.arrayValue?.count == 3)
            #expect(keyed["rows"]?.arrayValue?[1] == ["key": "zz", "error": "not_found"])
            #expect(keyed["rows"]?.arrayValue?[2] == ["key": 5, "error": "not_found"])
            #expect(try await client.get("/db/_all_docs?startkey=b").json["error"] == "bad_request")
            #expect(try await client.get("/db/_all_docs?limit=x").json["error"] == "query_parse_error")
        }
    }

    @Test func findAnswersMatchesAndCouchDBQueryErrors() async throws {
        try await withLiveDatabase { _, client in
            _ = try await client.post("/db/_bulk_docs", ["docs": [["_id": "a", "age": 30], ["_id": "b", "age": 10]]])
            let found = try await client.post("/db/_find", ["selector": ["age": ["$gt": 18]], "fields": ["_id"]])
            #expect(found.json["docs"] == [["_id": "a"]])
            let missing = try await client.post("/db/_find", ["limit": 1])
            #expect(missing.status == 400)
            #expect(try await client.post("/db/_explain", ["selector": ["age": 1]]).json["dbname"] == "db")
        }
    }
}
