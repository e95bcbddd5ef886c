import CloudantCore
import CloudantStore
import Testing

@Suite("Attachments")
struct AttachmentTests {
    let helloBase64 = "aGVsbG8gd29ybGQ="  // "hello world"

    @Test func inlineDataIsStoredWithItsMD5DigestLengthAndRevpos_D37() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put([
            "_id": "a", "_attachments": ["note.txt": ["content_type": "text/plain", "data": .string(helloBase64)]],
        ])
        let doc = try await temp.store.document(id: "a")
        let stub = doc["_attachments"]?["note.txt"]
        #expect(stub?["digest"] == "md5-XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(stub?["length"] == 11)
        #expect(stub?["revpos"] == 1)
        #expect(stub?["stub"] == true)
        let attachment = try await temp.store.attachment(documentID: "a", name: "note.txt")
        #expect(attachment.data == Array("hello world".utf8))
        #expect(attachment.info.contentType == "text/plain")
    }

    @Test func aStubKeepsTheAttachmentAndItsRevposAcrossEdits_D38() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put([
            "_id": "a", "_attachments": ["n": ["content_type": "text/plain", "data": .string(helloBase64)]],
        ])
        let second = try await temp.store.put([
            "_id": "a", "_rev": .string(first.rev), "v": 2, "_attachments": ["n": ["stub": true]],
        ])
        let doc = try await temp.store.document(id: "a", options: ReadOptions(attachments: true))
        #expect(doc.rev == second.rev)
        #expect(doc["_attachments"]?["n"]?["revpos"] == 1)
        #expect(doc["_attachments"]?["n"]?["data"] == .string(helloBase64))
    }

    @Test func anAttachmentNotListedInAnEditIsDropped_D20() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put([
            "_id": "a", "_attachments": ["n": ["content_type": "text/plain", "data": .string(helloBase64)]],
        ])
        try await temp.store.put(["_id": "a", "_rev": .string(first.rev)])
        #expect(try await temp.store.document(id: "a")["_attachments"] == nil)
        // The old revision still has it, until compaction.
        let old = try await temp.store.attachment(documentID: "a", name: "n", rev: first.rev)
        #expect(old.data.count == 11)
    }

    @Test func newDataInAnEditGetsTheNewGenerationAsRevposEvenIfTheClientSentAnOldOne_D38() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put([
            "_id": "a", "_attachments": ["n": ["content_type": "text/plain", "data": .string(helloBase64)]],
        ])
        try await temp.store.put([
            "_id": "a", "_rev": .string(first.rev),
            "_attachments": ["n": ["content_type": "text/plain", "data": "Ynll", "revpos": 1]],
        ])
        let doc = try await temp.store.document(id: "a", options: ReadOptions(attachmentsSince: [first.rev]))
        #expect(doc["_attachments"]?["n"]?["revpos"] == 2)
        #expect(doc["_attachments"]?["n"]?["data"] == "Ynll")
    }

    @Test func aReplicatedStubMatchesByNameAndRevposNotByDigest() async throws {
        let temp = try TemporaryStore()
        // As CouchDB sends it: data with its own (gzip-based) digest, then an edit carrying a stub.
        _ = try await temp.store.bulkDocs(
            [[
                "_id": "x", "_rev": .string(rev(1, "a")),
                "_attachments": ["a": ["content_type": "text/plain", "data": .string(helloBase64), "revpos": 1, "digest": "md5-couchdbGzipDigest=="]],
            ]], newEdits: false)
        let failures = try await temp.store.bulkDocs(
            [[
                "_id": "x", "_rev": .string(rev(2, "b")),
                "_revisions": ["start": 2, "ids": [.string(String(repeating: "b", count: 32)), .string(String(repeating: "a", count: 32))]],
                "_attachments": ["a": ["stub": true, "revpos": 1, "digest": "md5-somethingElse=="]],
            ]], newEdits: false)
        #expect(failures.isEmpty)
        let doc = try await temp.store.document(id: "x")
        #expect(doc.rev == rev(2, "b"))
        #expect(doc["_attachments"]?["a"]?["digest"] == "md5-couchdbGzipDigest==")
        #expect(try await temp.store.attachment(documentID: "x", name: "a").data == Array("hello world".utf8))
    }

    @Test func aStubForAnUnknownAttachmentIsMissingStub_D39() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a"])
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "_attachments": ["x": ["stub": true]]])
        }
        #expect(error?.code == .missingStub)
        #expect(error?.couchDB.status == 412)
    }

    @Test func attsSinceInlinesOnlyNewerAttachments_D43() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put([
            "_id": "a", "_attachments": ["old": ["content_type": "text/plain", "data": .string(helloBase64)]],
        ])
        try await temp.store.put([
            "_id": "a", "_rev": .string(first.rev),
            "_attachments": ["old": ["stub": true], "new": ["content_type": "text/plain", "data": "Ynll"]],
        ])
        let doc = try await temp.store.document(id: "a", options: ReadOptions(attachmentsSince: [first.rev]))
        #expect(doc["_attachments"]?["old"]?["stub"] == true)
        #expect(doc["_attachments"]?["new"]?["data"] == "Ynll")
    }

    @Test(arguments: [
        ["_x": ["content_type": "text/plain", "data": "YQ=="]] as JSONValue,
        ["x": ["content_type": "text/plain", "data": "not base64!"]],
        ["x": ["content_type": "text/plain"]],
        ["x": "text"],
    ])
    func malformedAttachmentsAreTypedErrors(attachments: JSONValue) async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_attachments": attachments])
        }
        #expect(error?.code == .invalidValue)
    }
}
