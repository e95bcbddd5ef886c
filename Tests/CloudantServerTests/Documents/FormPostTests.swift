import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `POST /{db}/{docid}` with `multipart/form-data`, an HTML form's upload, as `chttpd_db:db_doc_req/3` takes it.
@Suite("Form posts to a document")
struct FormPostTests {
    /// The TestClient sends `Host: 127.0.0.1`, so a page of this host is `http://127.0.0.1/…`.
    private static let referer = ["Referer": "http://127.0.0.1/_utils/"]

    private static func form(_ fields: [(disposition: String, type: String?, body: String)]) -> Data {
        var text = ""
        for field in fields {
            text += "------TF\r\nContent-Disposition: form-data; \(field.disposition)\r\n"
            if let type = field.type { text += "Content-Type: \(type)\r\n" }
            text += "\r\n\(field.body)\r\n"
        }
        return Data((text + "------TF--").utf8)
    }

    @Test func aFileFieldAddsAnAttachmentToTheRevisionTheRevFieldNames() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/form_data_doc", ["kept": true]).json["rev"]?.stringValue)
            let body = Self.form([
                (#"name="_rev""#, nil, rev),
                (#"name="_attachments"; filename="file.txt""#, "text/plain", "contents of file.txt\r\n"),
            ])
            let answer = try await client.send(
                "POST", "/db/form_data_doc", body: body, contentType: "multipart/form-data; boundary=----TF", headers: Self.referer)
            #expect(answer.status == 201 && answer.json["ok"] == true && answer.json["id"] == "form_data_doc")
            let newRev = try #require(answer.json["rev"]?.stringValue)
            #expect(answer.header("ETag") == "\"\(newRev)\"" && answer.header("Location") == nil)
            let doc = try await client.get("/db/form_data_doc").json
            #expect(doc["kept"] == true && doc["_rev"] == .string(newRev))
            #expect(doc["_attachments"]?["file.txt"]?["length"] == 22 && doc["_attachments"]?["file.txt"]?["content_type"] == "text/plain")
            #expect(try await client.get("/db/form_data_doc/file.txt").text == "contents of file.txt\r\n")
        }
    }

    @Test func aDocFieldIsTheDocumentWritten() async throws {
        try await withLiveDatabase { _, client in
            let body = Self.form([(#"name="_doc""#, nil, #"{"title":"from a form"}"#)])
            let answer = try await client.send(
                "POST", "/db/posted", body: body, contentType: "multipart/form-data; boundary=----TF", headers: Self.referer)
            #expect(answer.status == 201)
            #expect(try await client.get("/db/posted").json["title"] == "from a form")
        }
    }

    @Test func aFormFromAnotherHostOrOfAnotherTypeIsRefused() async throws {
        try await withLiveDatabase { _, client in
            let body = Self.form([(#"name="_doc""#, nil, "{}")])
            let noReferer = try await client.send("POST", "/db/x", body: body, contentType: "multipart/form-data; boundary=----TF")
            #expect(noReferer.status == 400 && noReferer.json["reason"] == "Referer header required.")
            let elsewhere = try await client.send(
                "POST", "/db/x", body: body, contentType: "multipart/form-data; boundary=----TF",
                headers: ["Referer": "http://evil.example/page"])
            #expect(elsewhere.status == 400 && elsewhere.json["reason"] == "Referer header must match host.")
            let urlencoded = try await client.send(
                "POST", "/db/baz", body: Data("a=b".utf8), contentType: "application/x-www-form-urlencoded", headers: Self.referer)
            urlencoded.expectCouchError(415, "bad_content_type", "Content-Type must be multipart/form-data")
            #expect(try await client.get("/db/x").status == 404)
            #expect(try await client.get("/db/baz").status == 404)
        }
    }
}
