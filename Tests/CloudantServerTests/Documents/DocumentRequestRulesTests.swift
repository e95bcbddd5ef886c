import CloudantCore
import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// Single-document and attachment requests checked as `chttpd_db`'s `db_doc_req/3` and `db_attachment_req/4`
/// check them: heads, sizes, revisions, deleted documents, and the order in which they are refused.
@Suite("Document and attachment requests: CouchDB's checks")
struct DocumentRequestRulesTests {
    /// `chttpd` serves a `HEAD` as the `GET` and mochiweb sends only its head, `Content-Length` included.
    @Test func aHeadOfADocumentOrDatabaseCarriesTheGetsLengthAndType() async throws {
        try await withLiveDatabase { _, client in
            #expect(try await client.put("/db/doc", ["n": 1]).status == 201)
            let get = try await client.get("/db/doc")
            let head = try await client.send("HEAD", "/db/doc")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count) && head.header("ETag") == get.header("ETag"))
            let database = try await client.send("HEAD", "/db")
            #expect(database.header("Content-Length") == String(try await client.get("/db").body.count))
        }
    }

    /// `couch_doc:from_json_obj_validate/2` checks every attachment's length against `max_attachment_size`:
    /// inline data by its decoded length, stubs and `follows` parts by the length they declare.
    @Test func anInlineAttachmentOverTheSizeLimitIsRefusedByName() async throws {
        try await withLiveServer({ $0.maxAttachmentSize = 10 }) { server in
            let client = server.admin
            #expect(try await client.send("PUT", "/db").status == 201)
            let fifteen = Base64.encode(Array("012345678901234".utf8))
            let ten = Base64.encode(Array("0123456789".utf8))
            let attachments: JSONValue = ["f.bin": ["content_type": "x/y", "data": .string(fifteen)]]
            try await client.put("/db/big", ["_attachments": attachments]).expectCouchError(413, "attachment_too_large", "f.bin")
            try await client.post("/db", ["_id": "posted", "_attachments": attachments]).expectCouchError(413, "attachment_too_large", "f.bin")
            try await client.post("/db/_bulk_docs", ["docs": [["_id": "b", "_attachments": attachments]]])
                .expectCouchError(413, "attachment_too_large", "f.bin")
            for id in ["big", "posted", "b"] { #expect(try await client.get("/db/\(id)").status == 404) }
            let fits: JSONValue = ["_attachments": ["f.bin": ["content_type": "x/y", "data": .string(ten)]]]
            #expect(try await client.put("/db/small", fits).status == 201)
            // A standalone upload names the attachment too.
            try await client.send("PUT", "/db/up/g.bin", body: Data(Array(repeating: 1, count: 11)), contentType: "x/y")
                .expectCouchError(413, "attachment_too_large", "g.bin")
        }
    }

    /// `parse_doc_query/1` reads `deleted=true` into the `deleted` open option: the tombstone is answered.
    @Test func deletedTrueReadsTheTombstoneOfADeletedDocument() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/gone", ["n": 1]).json["rev"]?.stringValue)
            let deleted = try #require(try await client.send("DELETE", "/db/gone?rev=\(rev)").json["rev"]?.stringValue)
            try await client.get("/db/gone").expectCouchError(404, "not_found", "deleted")
            let tombstone = try await client.get("/db/gone?deleted=true")
            #expect(tombstone.status == 200 && tombstone.json == ["_id": "gone", "_rev": .string(deleted), "_deleted": true])
            #expect(tombstone.header("ETag") == "\"\(deleted)\"")
        }
    }

    /// Revisions a document lacks, and `rev` against `If-Match` (`extract_header_rev/2`).
    @Test func aRevisionTheDocumentLacksOrTwoRevisionsThatDisagreeAreRefusedAsCouchDBRefusesThem() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.send("PUT", "/db/d/a.txt", body: Data("x".utf8), contentType: "text/plain").json["rev"]?.stringValue)
            let unknown = "1-" + String(repeating: "0", count: 32)
            // `couch_doc_open/4` turns an unknown revision into a plain `missing`.
            try await client.get("/db/d/a.txt?rev=\(unknown)").expectCouchError(404, "not_found", "missing")
            try await client.send("DELETE", "/db/d?rev=\(rev)", headers: ["If-Match": "\"\(unknown)\""])
                .expectCouchError(400, "bad_request", "Document rev and etag have different values")
            try await client.send("PUT", "/db/d/b.txt?rev=\(rev)", body: Data("y".utf8), contentType: "text/plain", headers: ["If-Match": "\"\(unknown)\""])
                .expectCouchError(400, "bad_request", "Document rev and etag have different values")
            #expect(try await client.get("/db/d").json["_rev"] == .string(rev))
            // A malformed revision is CouchDB's bare reason (`couch_doc:parse_rev/1`).
            try await client.get("/db/d?rev=bad").expectCouchError(400, "bad_request", "Invalid rev format")
            // `w` above one is `202 Accepted` for a deletion too (`update_doc/4`).
            #expect(try await client.send("DELETE", "/db/d?rev=\(rev)&w=2").status == 202)
        }
    }

    /// `couch_doc:transfer_fields/3` checks the body's own `_id` before the path's replaces it.
    @Test func aPutsBodyIdMustBeAValidIdEvenThoughThePathsIsUsed() async throws {
        try await withLiveDatabase { _, client in
            try await client.put("/db/ok1", ["_id": "_bad"])
                .expectCouchError(400, "illegal_docid", "Only reserved document ids may start with underscore.")
            try await client.put("/db/ok2", ["_id": 123]).expectCouchError(400, "illegal_docid", "Document id must be a string")
            #expect(try await client.put("/db/ok3", ["_id": "other"]).json["id"] == "ok3")
        }
    }

    /// `parse_doc_query/1` reads `atts_since` and `open_revs` with `couch_doc:parse_revs/1`; `atts_since`, even
    /// empty, asks for attachments (all of them when it names no ancestor).
    @Test func attsSinceAndOpenRevsAreListsOfRevisionsAndAnEmptyAttsSinceSendsEveryAttachment() async throws {
        try await withLiveDatabase { _, client in
            let attachments: JSONValue = ["t.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array("x".utf8)))]]
            #expect(try await client.put("/db/a", ["_attachments": attachments]).status == 201)
            let json = ["Accept": "application/json"]
            for (query, reason) in [
                ("atts_since=%5B%22bad%22%5D", "Invalid rev format"), ("atts_since=%5B1%5D", "Invalid rev format"),
                ("atts_since=%22x%22", "Invalid list of revisions"), ("open_revs=%5B1%5D", "Invalid rev format"),
                ("open_revs=%7B%7D", "Invalid list of revisions"),
            ] {
                try await client.get("/db/a?\(query)", headers: json).expectCouchError(400, "bad_request", reason)
            }
            let all = try await client.get("/db/a?atts_since=%5B%5D", headers: json)
            #expect(all.json["_attachments"]?["t.txt"]?["data"] == .string(Base64.encode(Array("x".utf8))), "\(all.text)")
        }
    }

    /// COPY opens the source revision `rev` (or `If-Match`, which must agree) names and keeps its deletion.
    @Test func aCopyOfADeletedRevisionIsADeletionAndItsRevisionsMustAgree() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/src", ["n": 1]).json["rev"]?.stringValue)
            let deleted = try #require(try await client.send("DELETE", "/db/src?rev=\(rev)").json["rev"]?.stringValue)
            let copy = try await client.send("COPY", "/db/src?rev=\(deleted)", headers: ["Destination": "dst"])
            #expect(copy.status == 201)
            try await client.get("/db/dst").expectCouchError(404, "not_found", "deleted")
            try await client.send("COPY", "/db/src?rev=\(rev)", headers: ["Destination": "other", "If-Match": "\"\(deleted)\""])
                .expectCouchError(400, "bad_request", "Document rev and etag have different values")
        }
    }

    /// `chttpd_db` encodes the database's name in a document's `Location`, not in an attachment's.
    @Test func aDocumentsLocationEncodesTheDatabaseNameAndAnAttachmentsDoesNot() async throws {
        try await withLiveServer { server in
            let client = server.admin
            #expect(try await client.send("PUT", "/x%2Fy").status == 201)
            #expect(try await client.put("/x%2Fy/doc", ["n": 1]).header("Location") == "http://127.0.0.1/x%2Fy/doc")
            let attachment = try await client.send("PUT", "/x%2Fy/d/a.bin", body: Data("x".utf8), contentType: "x/y")
            #expect(attachment.header("Location") == "http://127.0.0.1/x/y/d/a.bin")
        }
    }

    /// `chttpd_db:db_req/2` redirects a `GET` of a design document whose slash is encoded.
    @Test func aDesignDocumentReadWithAnEncodedSlashIsRedirectedToItsAddress() async throws {
        try await withLiveDatabase { _, client in
            #expect(try await client.put("/db/_design/app", ["views": [:]]).status == 201)
            let redirect = try await client.get("/db/_design%2Fapp?revs=true")
            #expect(redirect.status == 301 && redirect.body.isEmpty)
            #expect(redirect.header("Location") == "http://127.0.0.1/db/_design/app?revs=true")
            #expect(try await client.get("/nodb/_design%2Fapp").status == 404)
        }
    }

    /// mochiweb's `parse_range_request/1` skips empty entries and reads `N` as `N-`; a `HEAD` is the `GET`'s head.
    @Test func rangesAreReadAsMochiwebReadsThemAndAHeadAnswersTheRangesHead() async throws {
        try await withLiveDatabase { _, client in
            let put = try await client.send("PUT", "/db/r/b.bin", body: Data("0123456789".utf8), contentType: "application/octet-stream")
            #expect(put.status == 201)
            let open = try await client.get("/db/r/b.bin", headers: ["Range": "bytes=5"])
            #expect(open.status == 206 && open.text == "56789" && open.header("Content-Range") == "bytes 5-9/10")
            let gaps = try await client.get("/db/r/b.bin", headers: ["Range": "bytes=0-1,,3-4"])
            #expect(gaps.status == 206 && gaps.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
            let head = try await client.send("HEAD", "/db/r/b.bin", headers: ["Range": "bytes=2-3"])
            #expect(head.status == 206 && head.header("Content-Length") == "2" && head.header("Content-Range") == "bytes 2-3/10")
            #expect(head.body.isEmpty)
        }
    }

    /// `couch_doc:to_json_obj/2`: `_id`, `_rev`, `_deleted`, the body, `_revisions`, the metadata, then
    /// `_attachments`, which clients comparing bytes see.
    @Test func aDocumentsMembersComeInCouchDBsOrder() async throws {
        try await withLiveDatabase { _, client in
            let attachments: JSONValue = ["t.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array("x".utf8)))]]
            let rev = try #require(try await client.put("/db/ord", ["a": 1, "_attachments": attachments]).json["rev"]?.stringValue)
            let read = try await client.get("/db/ord?revs=true&revs_info=true&local_seq=true")
            #expect(read.json.objectValue?.members.map(\.key) == ["_id", "_rev", "a", "_revisions", "_revs_info", "_local_seq", "_attachments"])
            let deleted = try #require(try await client.put("/db/ord", ["_rev": .string(rev), "_deleted": true, "left": 1]).json["rev"]?.stringValue)
            let tombstone = try await client.get("/db/ord?rev=\(deleted)")
            #expect(tombstone.json.objectValue?.members.map(\.key) == ["_id", "_rev", "_deleted", "left"])
        }
    }

    /// `chttpd_db` finds the database before `db_attachment_req/4` reads the attachment's name.
    @Test func anAttachmentOrCopyRequestToAMissingDatabaseIsA404BeforeItsHeadersOrNamesAreChecked() async throws {
        try await withLiveServer { server in
            try await server.admin.send("PUT", "/nodb/doc/_x", body: Data("x".utf8), contentType: "text/plain")
                .expectCouchError(404, "not_found", "Database does not exist.")
            try await server.admin.send("COPY", "/nodb/doc").expectCouchError(404, "not_found", "Database does not exist.")
        }
    }

    /// A `_local` document has no revisions to open by name (`couch_db:open_doc_revs_int/3` reads only the
    /// database's documents): `rev` is `404 missing`, `open_revs` answers as for a missing document. Its
    /// `DELETE` parses a given `rev` and sends the new revision's `ETag`.
    @Test func aLocalDocumentHasNoRevisionsToOpenByName() async throws {
        try await withLiveDatabase { _, client in
            #expect(try await client.put("/db/_local/l", ["n": 1]).status == 201)
            #expect(try await client.get("/db/_local/l").json["n"] == 1)
            try await client.get("/db/_local/l?rev=0-1").expectCouchError(404, "not_found", "missing")
            try await client.get("/db/_local/l?open_revs=all").expectCouchError(404, "not_found", "missing")
            let named = try await client.send("GET", "/db/_local/l?open_revs=%5B%220-1%22%5D", headers: ["Accept": "application/json"])
            #expect(named.status == 200 && named.json == [["missing": "0-1"]])
            try await client.send("DELETE", "/db/_local/l?rev=bad").expectCouchError(400, "bad_request", "Invalid rev format")
            #expect(try await client.get("/db/_local/l").status == 200)
            let deleted = try await client.send("DELETE", "/db/_local/l?rev=0-7")
            #expect(deleted.json == ["ok": true, "id": "_local/l", "rev": "0-0"])
            #expect(deleted.header("ETag")?.hasPrefix("\"") == true)
            try await client.send("DELETE", "/db/_local/l").expectCouchError(404, "not_found", "missing")
        }
    }

    /// `couch_doc:transfer_fields/3` reads the `_attachments` members that are objects and drops the rest
    /// unread: a document with `"x": "y"` there is written without that attachment.
    @Test func anAttachmentsMemberThatIsNotAnObjectIsDropped() async throws {
        try await withLiveDatabase { _, client in
            let written = try await client.put("/db/d", ["_attachments": ["x": "y", "_bad": 5], "n": 1])
            #expect(written.status == 201)
            let document = try await client.get("/db/d").json
            #expect(document["n"] == 1 && document["_attachments"] == nil)
        }
    }

    /// A `COPY` keeps each attachment's `revpos` (`set_new_att_revpos/1` leaves data already on disk alone) and
    /// its content, small or kept as a file, without sending it again.
    @Test func aCopyKeepsItsAttachmentsRevposAndContent() async throws {
        try await withLiveDatabase { _, client in
            let first = try #require(try await client.put("/db/a1", ["n": 1]).json["rev"]?.stringValue)
            let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let second = try await client.send(
                "PUT", "/db/a1/dir%2Fname.bin?rev=\(first)", body: Data("hello".utf8), contentType: "text/plain")
            let secondRev = try #require(second.json["rev"]?.stringValue)
            let third = try await client.send(
                "PUT", "/db/a1/big.bin?rev=\(secondRev)", body: large, contentType: "application/octet-stream")
            #expect(third.status == 201)
            let copied = try await client.send("COPY", "/db/a1", headers: ["Destination": "a1copy"])
            #expect(copied.status == 201)
            let copy = try await client.get("/db/a1copy").json
            #expect(copy["n"] == 1 && copy["_rev"]?.stringValue?.hasPrefix("1-") == true)
            #expect(copy["_attachments"]?["dir/name.bin"]?["revpos"] == 2)
            #expect(copy["_attachments"]?["big.bin"]?["revpos"] == 3)
            #expect(try await client.get("/db/a1copy/dir/name.bin").body == Data("hello".utf8))
            #expect(try await client.get("/db/a1copy/big.bin").body == large)
        }
    }
}
