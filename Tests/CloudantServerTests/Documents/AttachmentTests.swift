import CloudantCore
import Foundation
import Testing

@Suite("Attachments over HTTP")
struct AttachmentTests {
    @Test func standaloneAttachmentsAreWrittenReadAndDeleted() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            let put = try await client.send("PUT", "/db/doc/hello.txt", body: Data("hello world".utf8), contentType: "text/plain")
            #expect(put.status == 201)
            let rev = try #require(put.json["rev"]?.stringValue)
            let read = try await client.get("/db/doc/hello.txt")
            #expect(read.text == "hello world")
            #expect(read.header("Content-Type") == "text/plain")
            let stub = try await client.get("/db/doc").json["_attachments"]?["hello.txt"]
            #expect(stub?["stub"] == true)
            #expect(stub?["length"] == 11)
            let inline = try await client.get("/db/doc?attachments=true").json["_attachments"]?["hello.txt"]?["data"]
            #expect(inline == .string(Data("hello world".utf8).base64EncodedString()))
            let stale = try await client.send("PUT", "/db/doc/other.bin", body: Data([1, 2]), contentType: "application/octet-stream")
            #expect(stale.status == 409)
            let removed = try await client.delete("/db/doc/hello.txt?rev=\(rev)")
            #expect(removed.status == 200)
            #expect(try await client.get("/db/doc/hello.txt").status == 404)
        }
    }

    @Test func inlineBase64AttachmentsAreStored() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            let body: JSONValue = [
                "_attachments": ["a.bin": ["content_type": "application/octet-stream", "data": "AAEC"]],
            ]
            #expect(try await client.put("/db/doc", body).status == 201)
            let bytes = try await client.get("/db/doc/a.bin").body
            #expect(Array(bytes) == [0, 1, 2])
        }
    }

    @Test func multipartRelatedUploadsCarryTheirAttachments() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            let json = #"{"_id":"m","_rev":"1-abcd","_attachments":{"x.txt":{"content_type":"text/plain","follows":true,"length":3}}}"#
            let body = "--B\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--B\r\n\r\nabc\r\n--B--"
            let answer = try await client.send(
                "PUT", "/db/m?new_edits=false", body: Data(body.utf8), contentType: "multipart/related; boundary=\"B\"")
            #expect(answer.status == 201)
            #expect(try await client.get("/db/m/x.txt").text == "abc")
        }
    }
}
