import CloudantCore
@testable import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Documents as MIME multipart")
struct MultipartDocumentTests {
    private static let mixed = ["Accept": "multipart/mixed"]

    @Test func openRevsAllAnswersEachLeafAsAPartAndAMissingRevisionAsAnErrorPart() async throws {
        try await withLiveDatabase { _, client in
            let docs: JSONValue = [
                ["_id": "c", "_rev": "1-aaaa", "v": 1, "_attachments": ["a.bin": ["content_type": "application/octet-stream", "data": "AAEC"]]],
                ["_id": "c", "_rev": "1-bbbb", "v": 2],
            ]
            #expect(try await client.post("/db/_bulk_docs", ["docs": docs, "new_edits": false]).json == [])

            let all = try await client.get("/db/c?open_revs=all", headers: Self.mixed)
            #expect(all.status == 200)
            #expect(all.header("Content-Type")?.hasPrefix("multipart/mixed; boundary=\"") == true)
            let leaves = try all.parts()
            #expect(leaves.count == 2)
            let related = try #require(leaves.first { $0.essence == "multipart/related" })
            let inner = try related.parts()
            #expect(inner.count == 2)
            #expect(inner[0].json["_rev"] == "1-aaaa")
            #expect(inner[0].json["_attachments"]?["a.bin"]?["follows"] == true)
            #expect(inner[0].json["_attachments"]?["a.bin"]?["length"] == 3)
            #expect(inner[0].json["_attachments"]?["a.bin"]?["data"] == nil)
            #expect(inner[1].body == [0, 1, 2])
            #expect(inner[1].header("Content-Disposition") == "attachment; filename=\"a.bin\"")
            #expect(inner[1].header("Content-Type") == "application/octet-stream")
            let plain = try #require(leaves.first { $0.essence == "application/json" })
            #expect(plain.json == ["_id": "c", "_rev": "1-bbbb", "v": 2])

            let some = try await client.get("/db/c?open_revs=%5B%221-bbbb%22,%221-zzzz%22%5D", headers: Self.mixed).parts()
            #expect(some.count == 2)
            #expect(some[0].json["_rev"] == "1-bbbb")
            #expect(some[1].header("Content-Type") == "application/json; error=\"true\"")
            #expect(some[1].json == ["missing": "1-zzzz"])

            // A client that takes JSON and not multipart/mixed gets JSON.
            #expect(try await client.get("/db/c?open_revs=all", headers: ["Accept": "application/json"]).json.arrayValue?.count == 2)
        }
    }

    /// CouchDB asks mochiweb whether the client takes the MIME type, and mochiweb reads a missing `Accept`
    /// as `*/*`: curl and Python's requests get parts unless they ask for JSON.
    @Test func clientsThatSendNoAcceptOrAnyTypeGetPartsAsCouchDBSendsThem() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            let doc: JSONValue = ["_attachments": ["x.txt": ["content_type": "text/plain", "data": "eHl6"]]]
            #expect(try await client.put("/db/r", doc).status == 201)

            func contentType(_ path: String, accept: String?) async throws -> String? {
                try await client.get(path, headers: accept.map { ["Accept": $0] } ?? [:]).header("Content-Type")
            }
            #expect(try await contentType("/db/r?open_revs=all", accept: nil)?.hasPrefix("multipart/mixed;") == true)
            #expect(try await contentType("/db/r?open_revs=all", accept: "multipart/related,*/*")?.hasPrefix("multipart/mixed;") == true)
            #expect(try await contentType("/db/r?open_revs=all", accept: "*/*, multipart/*;q=0") == "application/json")
            #expect(try await contentType("/db/r?attachments=true", accept: nil)?.hasPrefix("multipart/related;") == true)
            #expect(try await contentType("/db/r?attachments=true", accept: "text/html") == "application/json")
            #expect(try await contentType("/db/r?attachments=true", accept: "*/*;q=7") == "application/json")
        }
    }

    @Test func bulkGetAnswersPartsToAClientThatTakesThemButNotJSON() async throws {
        try await withLiveDatabase { _, client in
            let withFile: JSONValue = ["_attachments": ["x.bin": ["content_type": "application/octet-stream", "data": "AAEC"]]]
            let rev = try #require(try await client.put("/db/a", withFile).json["rev"]?.stringValue)
            #expect(try await client.put("/db/b", ["v": 1]).status == 201)
            let body: JSONValue = ["docs": [["id": "a"], ["id": "b"], ["id": "b", "rev": "9-abc"], ["id": "none"]]]
            func bulkGet(accept: String?) async throws -> HTTPAnswer {
                try await client.send("POST", "/db/_bulk_get", json: body, headers: accept.map { ["Accept": $0] } ?? [:])
            }

            let mixed = try await bulkGet(accept: "multipart/mixed")
            #expect(mixed.status == 200)
            // CouchDB's boundary is `--` and a UUID.
            #expect(mixed.header("Content-Type")?.hasPrefix("multipart/mixed; boundary=\"--") == true)
            let parts = try mixed.parts()
            #expect(parts.count == 4)
            #expect(parts[0].header("X-Doc-Id") == "a")
            #expect(parts[0].header("X-Rev-Id") == rev)
            let inner = try parts[0].parts()
            #expect(inner[0].json["_attachments"]?["x.bin"]?["follows"] == true)
            #expect(inner[1].body == [0, 1, 2])
            #expect(parts[1].essence == "application/json")
            #expect(parts[1].json["v"] == 1)
            #expect(parts[2].header("Content-Type") == "application/json; error=\"true\"")
            #expect(parts[2].json == ["rev": "9-abc", "error": "not_found", "reason": "missing"])
            #expect(parts[3].json == ["id": "none", "rev": "undefined", "error": "not_found", "reason": "missing"])

            #expect(try await bulkGet(accept: "multipart/related").header("Content-Type")?.hasPrefix("multipart/related;") == true)
            // JSON wins whenever the client takes it, `*/*` and a missing header included.
            for accept in [nil, "*/*", "application/json, multipart/mixed"] {
                #expect(try await bulkGet(accept: accept).json["results"]?.arrayValue?.count == 4)
            }
        }
    }

    @Test func attsSinceSendsOnlyNewerAttachmentsAsPartsAndOlderOnesAsStubs() async throws {
        try await withLiveDatabase { _, client in
            let first: JSONValue = ["_attachments": ["old.txt": ["content_type": "text/plain", "data": "b2xk"]]]
            let rev1 = try #require(try await client.put("/db/d", first).json["rev"]?.stringValue)
            let second: JSONValue = [
                "_rev": .string(rev1),
                "_attachments": [
                    "old.txt": ["stub": true], "new.bin": ["content_type": "application/octet-stream", "data": "/wA="],
                ],
            ]
            let rev2 = try #require(try await client.put("/db/d", second).json["rev"]?.stringValue)

            let path = "/db/d?revs=true&latest=true&open_revs=%5B%22\(rev2)%22%5D&atts_since=%5B%22\(rev1)%22%5D"
            let leaves = try await client.get(path, headers: Self.mixed).parts()
            #expect(leaves.count == 1)
            let inner = try leaves[0].parts()
            let attachments = inner[0].json["_attachments"]
            #expect(attachments?["old.txt"]?["stub"] == true)
            #expect(attachments?["new.bin"]?["follows"] == true)
            #expect(inner.count == 2)
            #expect(inner[1].body == [0xFF, 0x00])

            // The asker holds every attachment: the leaf is a plain JSON part.
            let current = "/db/d?open_revs=%5B%22\(rev2)%22%5D&atts_since=%5B%22\(rev2)%22%5D"
            let stubsOnly = try await client.get(current, headers: Self.mixed).parts()
            #expect(stubsOnly[0].essence == "application/json")
            #expect(stubsOnly[0].json["_attachments"]?["new.bin"]?["stub"] == true)
        }
    }

    @Test func attachmentsTrueWithAcceptMultipartRelatedSendsRawParts() async throws {
        try await withLiveDatabase { _, client in
            let doc: JSONValue = ["_attachments": ["x.bin": ["content_type": "application/octet-stream", "data": "eHl6"]]]
            let rev = try #require(try await client.put("/db/r", doc).json["rev"]?.stringValue)
            let answer = try await client.get("/db/r?attachments=true", headers: ["Accept": "multipart/related"])
            #expect(answer.header("Content-Type")?.hasPrefix("multipart/related") == true)
            #expect(answer.header("ETag") == "\"\(rev)\"")
            let parts = try answer.parts()
            #expect(parts[0].json["_attachments"]?["x.bin"]?["follows"] == true)
            #expect(parts[0].json["_attachments"]?["x.bin"]?["encoding"] == nil)
            #expect(parts[1].body == Array("xyz".utf8))
            #expect(parts[1].header("Content-Encoding") == nil)
        }
    }

    /// CouchDB's multipart answers send a compressible attachment as it stores it: gzip bytes in the part,
    /// `Content-Encoding: gzip`, and `encoding`/`encoded_length` beside the content's `length` in the JSON.
    @Test func compressibleAttachmentsTravelGzipEncodedInMultipartAnswers() async throws {
        try await withLiveDatabase { _, client in
            let doc: JSONValue = ["_attachments": ["x.txt": ["content_type": "text/plain", "data": "aGVsbG8gd29ybGQ="]]]
            _ = try await client.put("/db/r", doc)
            let parts = try await client.get("/db/r?attachments=true", headers: ["Accept": "multipart/related"]).parts()
            let entry = parts[0].json["_attachments"]?["x.txt"]
            #expect(entry?["follows"] == true)
            #expect(entry?["length"] == 11)
            #expect(entry?["encoding"] == "gzip")
            #expect(entry?["encoded_length"] == .number(JSONNumber(parts[1].body.count)))
            #expect(entry?["digest"] == "md5-7mkg+nM0HN26sZkLN8KVSA==")
            #expect(parts[1].header("Content-Encoding") == "gzip")
            #expect(parts[1].body == Gzip.encode(Array("hello world".utf8), level: 8))
            #expect(AttachmentDigest.of(parts[1].body) == "md5-7mkg+nM0HN26sZkLN8KVSA==")
        }
    }

    @Test func multipartUploadsAreCheckedBeforeAnythingIsWritten() async throws {
        try await withLiveDatabase { server, client in
            let json = #"{"_attachments":{"x.txt":{"content_type":"text/plain","follows":true,"length":5}}}"#
            let cases: [(contentType: String, body: String, reason: String)] = [
                ("multipart/related", "--B\r\nContent-Type: application/json\r\n\r\n{}\r\n--B--", "boundary"),
                ("multipart/related; boundary=B", "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B\r\n\r\nabc", "closing boundary"),
                ("multipart/related; boundary=B", "--B\r\nContent-Type: application/json\r\n\r\nnot json\r\n--B--", "JSON document"),
                ("multipart/related; boundary=B", "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B\r\n\r\nabc\r\n--B--", "attachment shorter than expected"),
                ("multipart/related; boundary=B", "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B\r\n\r\nabcdef\r\n--B--", "attachment longer than expected"),
                ("multipart/related; boundary=B", "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B--", "has no part"),
                ("multipart/related; boundary=B", "--B\r\nContent-Type: application/json\r\n\r\n{}\r\n--B\r\n\r\nextra\r\n--B--", "more part"),
            ]
            for entry in cases {
                let answer = try await client.send("PUT", "/db/bad", body: Data(entry.body.utf8), contentType: entry.contentType)
                #expect(answer.status == 400, "\(entry.reason)")
                #expect(answer.json["error"] == "bad_request")
                #expect(answer.json["reason"]?.stringValue?.contains(entry.reason) == true, "\(answer.json)")
            }
            // `couch_httpd_multipart:mp_parse_doc/2` wants the document's part declared as JSON.
            for declared in ["", "Content-Type: text/plain\r\n"] {
                let body = "--B\r\n\(declared)\r\n{}\r\n--B--"
                let answer = try await client.send("PUT", "/db/bad", body: Data(body.utf8), contentType: "multipart/related; boundary=B")
                answer.expectCouchError(415, "bad_content_type", "Content-Type must be application/json")
            }
            #expect(try await client.get("/db/bad").status == 404)
            let anonymous = try await server.anonymous.send(
                "PUT", "/db/bad", body: Data("--B\r\nContent-Type: application/json\r\n\r\n{}\r\n--B--".utf8), contentType: "multipart/related; boundary=B")
            #expect(anonymous.status == 401)
        }
    }

    /// CouchDB's `multipart/related` `PUT` writes at once whatever `batch` says (its branch never reads it):
    /// `201` with the revision.
    @Test func aMultipartPutIgnoresBatchMode() async throws {
        try await withLiveDatabase { _, client in
            let json = #"{"n":1,"_attachments":{"x.txt":{"content_type":"text/plain","follows":true,"length":3}}}"#
            let body = "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B\r\n\r\nabc\r\n--B--"
            let answer = try await client.send(
                "PUT", "/db/mp?batch=ok", body: Data(body.utf8), contentType: "multipart/related; boundary=B")
            #expect(answer.status == 201 && answer.json["rev"]?.stringValue?.hasPrefix("1-") == true)
            #expect(answer.header("ETag") != nil)
            #expect(try await client.get("/db/mp/x.txt").body == Data("abc".utf8))
        }
    }

    /// CouchDB's replicator sends compressible attachments as CouchDB stores them: gzip-encoded, with the
    /// digest of the compressed bytes. They are kept as sent, so the digest describes them.
    @Test func gzipEncodedPartsAreStoredAsSentWithTheDigestTheyCameWith() async throws {
        try await withLiveDatabase { _, client in
            func upload(encoding: String) async throws -> HTTPAnswer {
                let json = #"{"_revisions":{"start":1,"ids":["abcd"]},"_rev":"1-abcd","_attachments":{"hello.txt":"#
                    + #"{"content_type":"text/plain","revpos":1,"digest":"md5-7mkg+nM0HN26sZkLN8KVSA==","length":11,"#
                    + #""follows":true,"encoding":"\#(encoding)","encoded_length":31}}}"#
                var writer = MultipartWriter(boundary: "gz")
                writer.addPart(headers: [("Content-Type", "application/json")], body: Array(json.utf8))
                writer.addPart(
                    headers: [("Content-Type", "text/plain"), ("Content-Encoding", encoding)],
                    body: Gzip.encode(Array("hello world".utf8), level: 8) ?? [])
                return try await client.send(
                    "PUT", "/db/z?new_edits=false", body: Data(writer.finish()), contentType: writer.contentType("related"))
            }
            let refused = try await upload(encoding: "br")
            #expect(refused.status == 415)
            #expect(refused.json["error"] == "bad_content_type")
            let stored = try await upload(encoding: "gzip")
            #expect(stored.status == 201)
            #expect(stored.json["rev"] == "1-abcd")
            #expect(try await client.get("/db/z/hello.txt").text == "hello world")
            let stub = try await client.get("/db/z?att_encoding_info=true").json["_attachments"]?["hello.txt"]
            #expect(stub?["digest"] == "md5-7mkg+nM0HN26sZkLN8KVSA==")
            #expect(stub?["length"] == 11)
            #expect(stub?["encoding"] == "gzip")
            #expect(stub?["encoded_length"] == 31)
        }
    }

    /// A part whose bytes do not match the digest sent with it is refused, and nothing is stored
    /// (CouchDB's `content_md5_mismatch`).
    @Test func aPartThatDoesNotMatchItsDigestIsRefusedAndNothingIsStored() async throws {
        try await withLiveDatabase { _, client in
            let json = #"{"_rev":"1-abcd","_attachments":{"a.bin":{"content_type":"application/octet-stream","revpos":1,"#
                + #""digest":"md5-7mkg+nM0HN26sZkLN8KVSA==","length":3,"follows":true}}}"#
            var writer = MultipartWriter(boundary: "md")
            writer.addPart(headers: [("Content-Type", "application/json")], body: Array(json.utf8))
            writer.addPart(headers: [("Content-Type", "application/octet-stream")], body: [1, 2, 3])
            let answer = try await client.send(
                "PUT", "/db/m?new_edits=false", body: Data(writer.finish()), contentType: writer.contentType("related"))
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "content_md5_mismatch")
            #expect(try await client.get("/db/m").status == 404)
        }
    }

    @Test func attachmentPartsStreamPastTheBodyLimitUpToTheAttachmentLimitAndTheJSONPartDoesNot() async throws {
        try await withLiveServer({
            $0.maxRequestBodySize = 16 * 1024
            $0.maxAttachmentSize = 100 * 1024
        }) { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            func upload(_ id: String, attachment size: Int, padding: Int = 0) async throws -> HTTPAnswer {
                var writer = MultipartWriter(boundary: "big")
                let json = #"{"pad":"\#(String(repeating: "x", count: padding))","_attachments":{"b.bin":{"content_type":"application/octet-stream","follows":true,"length":\#(size)}}}"#
                writer.addPart(headers: [("Content-Type", "application/json")], body: Array(json.utf8))
                writer.addPart(headers: [], body: [UInt8](repeating: 7, count: size))
                return try await client.send("PUT", "/db/\(id)", body: Data(writer.finish()), contentType: writer.contentType("related"))
            }
            let streamed = try await upload("ok", attachment: 64 * 1024)
            #expect(streamed.status == 201, "\(streamed.text)")
            #expect(Array(try await client.get("/db/ok/b.bin").body) == [UInt8](repeating: 7, count: 64 * 1024))

            let tooLarge = try await upload("big", attachment: 200 * 1024)
            #expect(tooLarge.status == 413 && tooLarge.json["error"] == "attachment_too_large", "\(tooLarge.text)")
            let jsonTooLarge = try await upload("fat", attachment: 10, padding: 20 * 1024)
            #expect(jsonTooLarge.status == 413 && jsonTooLarge.json["error"] == "too_large", "\(jsonTooLarge.text)")
            #expect(try await client.get("/db/big").status == 404)
            #expect(try await client.get("/db/fat").status == 404)
            let staging = server.folder + "/db.sqlite-attachments/staging"
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).isEmpty)
        }
    }
}
