import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Attachment rules of `chttpd_db:db_attachment_req/4` and `couch_att` that clients meet as errors.
@Suite("Attachment rules over HTTP")
struct AttachmentRulesTests {
    @Test func inlineDataThatIsNotBase64IsABadRequestNamingTheAttachment() async throws {
        try await withLiveDatabase { _, client in
            let answer = try await client.put(
                "/db/bad_doc", ["_attachments": ["foo.txt": ["content_type": "text/plain", "data": "notBase64Encoded="]]])
            answer.expectCouchError(400, "bad_request", "Invalid attachment data for foo.txt")
            #expect(try await client.get("/db/bad_doc").status == 404)
        }
    }

    @Test func deletingAnAttachmentWithoutTheCurrentRevisionConflicts() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(
                try await client.put("/db/bin_doc", ["_attachments": ["foo.txt": ["content_type": "text/plain", "data": "aGk="]]])
                    .json["rev"]?.stringValue)
            let withoutRev = try await client.send("DELETE", "/db/bin_doc/foo.txt")
            #expect(withoutRev.status == 409 && withoutRev.json["error"] == "conflict")
            let unknownRev = try await client.send("DELETE", "/db/bin_doc/foo.txt?rev=4-garbage")
            #expect(unknownRev.status == 409 && unknownRev.json == ["error": "not_found", "reason": "missing_rev"])
            // A missing attachment or document is still a 404, revision or not.
            #expect(try await client.send("DELETE", "/db/bin_doc/nothing.txt").status == 404)
            #expect(try await client.send("DELETE", "/db/bin_doc/nothing.txt?rev=\(rev)").status == 404)
            #expect(try await client.send("DELETE", "/db/nobody/foo.txt").status == 404)
            let removed = try await client.send("DELETE", "/db/bin_doc/foo.txt?rev=\(rev)")
            #expect(removed.status == 200)
            #expect(try await client.get("/db/bin_doc/foo.txt").status == 404)
        }
    }
}
