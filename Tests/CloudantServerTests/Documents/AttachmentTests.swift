import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Attachments over HTTP")
struct AttachmentTests {
    @Test func standaloneAttachmentsAreWrittenReadAndDeleted() async throws {
        try await withLiveDatabase { _, client in
            let put = try await client.send("PUT", "/db/doc/hello.txt", body: Data("hello world".utf8), contentType: "text/plain")
            #expect(put.status == 201)
            let rev = try #require(put.json["rev"]?.stringValue)
            let read = try await client.get("/db/doc/hello.txt")
            #expect(read.text == "hello world")
            #expect(read.header("Content-Type") == "text/plain")
            let stub = try await client.get("/db/doc").json["_attachments"]?["hello.txt"]
            #expect(stub?["stub"] == true)
            #expect(stub?["length"] == 11)
            let inline = try await client.get("/db/doc?attachments=true", headers: ["Accept": "application/json"]).json["_attachments"]?["hello.txt"]?["data"]
            #expect(inline == .string(Data("hello world".utf8).base64EncodedString()))
            let stale = try await client.send("PUT", "/db/doc/other.bin", body: Data([1, 2]), contentType: "application/octet-stream")
            #expect(stale.status == 409)
            let removed = try await client.delete("/db/doc/hello.txt?rev=\(rev)")
            #expect(removed.status == 200)
            #expect(try await client.get("/db/doc/hello.txt").status == 404)
        }
    }

    @Test func inlineBase64AttachmentsAreStored() async throws {
        try await withLiveDatabase { _, client in
            let body: JSONValue = [
                "_attachments": ["a.bin": ["content_type": "application/octet-stream", "data": "AAEC"]],
            ]
            #expect(try await client.put("/db/doc", body).status == 201)
            let bytes = try await client.get("/db/doc/a.bin").body
            #expect(Array(bytes) == [0, 1, 2])
        }
    }

    @Test func multipartRelatedUploadsCarryTheirAttachments() async throws {
        try await withLiveDatabase { _, client in
            let json = #"{"_id":"m","_rev":"1-abcd","_attachments":{"x.txt":{"content_type":"text/plain","follows":true,"length":3}}}"#
            let body = "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B\r\n\r\nabc\r\n--B--"
            let answer = try await client.send(
                "PUT", "/db/m?new_edits=false", body: Data(body.utf8), contentType: "multipart/related; boundary=\"B\"")
            #expect(answer.status == 201)
            #expect(try await client.get("/db/m/x.txt").text == "abc")
        }
    }

    /// CouchDB serves an attachment it keeps gzip-encoded as gzip to a client that accepts it, decoded to
    /// one that does not; its ETag is the digest's base64 (without "md5-").
    @Test func aCompressedAttachmentIsServedEncodedOnlyToClientsThatAcceptGzip() async throws {
        try await withLiveDatabase { _, client in
            _ = try await client.send("PUT", "/db/d/h.txt", body: Data("hello world".utf8), contentType: "text/plain")
            let plain = try await client.get("/db/d/h.txt")
            #expect(plain.text == "hello world")
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.header("ETag") == "\"7mkg+nM0HN26sZkLN8KVSA==\"")
            #expect(plain.header("Accept-Ranges") == "none")
            let encoded = try await client.get("/db/d/h.txt", headers: ["Accept-Encoding": "gzip, deflate"])
            #expect(encoded.header("Content-Encoding") == "gzip")
            #expect(Array(encoded.body) == Gzip.encode(Array("hello world".utf8), level: 8))
            let refused = try await client.get("/db/d/h.txt", headers: ["Accept-Encoding": "gzip;q=0, identity"])
            #expect(refused.text == "hello world")
            let notModified = try await client.get("/db/d/h.txt", headers: ["If-None-Match": "\"7mkg+nM0HN26sZkLN8KVSA==\""])
            #expect(notModified.status == 304)
        }
    }

    @Test func byteRangesOfAnUnencodedAttachment() async throws {
        try await withLiveDatabase { _, client in
            let bytes = Data((0..<100).map { UInt8($0) })
            _ = try await client.send("PUT", "/db/d/b.bin", body: bytes, contentType: "application/octet-stream")
            let whole = try await client.get("/db/d/b.bin")
            #expect(whole.header("Accept-Ranges") == "bytes")
            let part = try await client.get("/db/d/b.bin", headers: ["Range": "bytes=10-19"])
            #expect(part.status == 206)
            #expect(part.header("Content-Range") == "bytes 10-19/100")
            #expect(Array(part.body) == Array(10..<20))
            let tail = try await client.get("/db/d/b.bin", headers: ["Range": "bytes=-5"])
            #expect(Array(tail.body) == Array(95..<100))
            let clamped = try await client.get("/db/d/b.bin", headers: ["Range": "bytes=98-500"])
            #expect(clamped.header("Content-Range") == "bytes 98-99/100")
            let backwards = try await client.get("/db/d/b.bin", headers: ["Range": "bytes=20-10"])
            #expect(backwards.status == 416)
            let several = try await client.get("/db/d/b.bin", headers: ["Range": "bytes=0-1,50-51"])
            #expect(several.status == 206)
            #expect(several.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
        }
    }

    /// A `PUT` naming a revision the document does not have is a conflict (CouchDB 409), not a 404; the
    /// answer's `Location` names the attachment; a gzip-encoded upload is kept as sent.
    @Test func attachmentWritesFollowCouchDBsRules() async throws {
        try await withLiveDatabase { _, client in
            let first = try await client.send("PUT", "/db/d/a%20b.txt", body: Data("x".utf8), contentType: "text/plain")
            #expect(first.header("Location") == "http://127.0.0.1/db/d/a%20b.txt")
            #expect(first.header("ETag") == nil)
            let stale = try await client.send(
                "PUT", "/db/d/c.txt?rev=9-\(String(repeating: "0", count: 32))", body: Data("y".utf8), contentType: "text/plain")
            // A revision the document lacks is `{{not_found, missing}, Rev}` (`fabric:open_revs/4`), as for a DELETE.
            #expect(stale.status == 409)
            #expect(stale.json == ["error": "not_found", "reason": "missing_rev"])
            let rev = try #require(first.json["rev"]?.stringValue)
            let gzip = try #require(Gzip.encode(Array("zipped".utf8), level: 1))
            let second = try await client.send(
                "PUT", "/db/d/z.txt?rev=\(rev)", body: Data(gzip), contentType: "text/plain", headers: ["Content-Encoding": "gzip"])
            #expect(second.status == 201)
            #expect(try await client.get("/db/d/z.txt").text == "zipped")
            let stub = try await client.get("/db/d?att_encoding_info=true").json["_attachments"]?["z.txt"]
            #expect(stub?["digest"] == .string(AttachmentDigest.of(gzip)))
            #expect(stub?["length"] == 6)
            #expect(stub?["encoded_length"] == .number(JSONNumber(gzip.count)))
            let brotli = try await client.send(
                "PUT", "/db/d/q.txt", body: Data("q".utf8), contentType: "text/plain", headers: ["Content-Encoding": "br"])
            #expect(brotli.status == 415)
            let missing = try await client.delete("/db/d/nothing.txt?rev=\(try #require(second.json["rev"]?.stringValue))")
            #expect(missing.status == 404)
        }
    }
}
