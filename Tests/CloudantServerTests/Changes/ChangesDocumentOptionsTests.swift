import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// `_changes?include_docs=true` reads each document with the document options CouchDB's
/// `parse_changes_query/1` takes: `conflicts`, `attachments`, `att_encoding_info`.
@Suite("_changes document options")
struct ChangesDocumentOptionsTests {
    @Test func attachmentsAreStubsUnlessTheFeedAsksForTheirData() async throws {
        try await withLiveDatabase { _, client in
            let data = "VGhpcyBpcyBhIGJhc2U2NCBlbmNvZGVkIHRleHQ="
            _ = try await client.put(
                "/db/doc", ["_attachments": ["foo.txt": ["content_type": "text/plain", "data": .string(data)]]])
            let stubs = try await client.get("/db/_changes?include_docs=true").json["results"]?.arrayValue?.first?["doc"]?["_attachments"]?["foo.txt"]
            #expect(stubs?["stub"] == true && stubs?["data"] == nil && stubs?["encoding"] == nil)
            let inline = try await client.get("/db/_changes?include_docs=true&attachments=true").json["results"]?.arrayValue?.first?["doc"]?["_attachments"]?["foo.txt"]
            #expect(inline?["data"] == .string(data) && inline?["stub"] == nil && inline?["encoding"] == nil)
            let encoded = try await client.get("/db/_changes?include_docs=true&att_encoding_info=true").json["results"]?.arrayValue?.first?["doc"]?["_attachments"]?["foo.txt"]
            #expect(encoded?["stub"] == true && encoded?["encoding"] == "gzip" && encoded?["encoded_length"] != nil)
            // Without include_docs there is no document to carry them.
            #expect(try await client.get("/db/_changes?attachments=true").json["results"]?.arrayValue?.first?["doc"] == nil)
        }
    }
}
