import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Attachments")
struct AttachmentTests {
    let helloBase64 = "aGVsbG8gd29ybGQ="  // "hello world"

    /// Stores document `id` with the one attachment `name` (`data` in base64) and returns its stub as read with
    /// its encoding info.
    func putAttachment(
        _ name: String, contentType: String, data: String, id: String = "a", in store: DocumentStore
    ) async throws -> JSONValue? {
        try await store.put(["_id": .string(id), "_attachments": [name: ["content_type": .string(contentType), "data": .string(data)]]])
        return try await store.document(id: id, options: ReadOptions(attachmentEncodingInfo: true))["_attachments"]?[name]
    }

    @Test func binaryDataIsStoredAsWrittenWithItsMD5DigestLengthAndRevpos() async throws {
        let temp = try TemporaryStore()
        let stub = try await putAttachment("note.bin", contentType: "application/octet-stream", data: helloBase64, in: temp.store)
        #expect(stub?["digest"] == "md5-XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(stub?["length"] == 11)
        #expect(stub?["revpos"] == 1)
        #expect(stub?["stub"] == true)
        #expect(stub?["encoding"] == nil)
        let attachment = try await temp.store.attachment(documentID: "a", name: "note.bin")
        #expect(attachment.storedData == Array("hello world".utf8))
        #expect(attachment.info.encoding == .identity)
    }

    /// CouchDB keeps compressible types gzip-encoded and digests the gzip bytes: "hello world"
    /// as `text/plain` has CouchDB's digest, and reads back as written.
    @Test func compressibleDataIsStoredGzipEncodedWithCouchDBsDigest() async throws {
        let temp = try TemporaryStore()
        let stub = try await putAttachment("note.txt", contentType: "text/plain; charset=utf-8", data: helloBase64, in: temp.store)
        #expect(stub?["digest"] == "md5-7mkg+nM0HN26sZkLN8KVSA==")
        #expect(stub?["length"] == 11)
        #expect(stub?["encoding"] == "gzip")
        #expect(stub?["encoded_length"] == 31)
        #expect(try await temp.store.document(id: "a")["_attachments"]?["note.txt"]?["encoding"] == nil)
        let attachment = try await temp.store.attachment(documentID: "a", name: "note.txt")
        #expect(try attachment.data() == Array("hello world".utf8))
        #expect(AttachmentDigest.of(attachment.storedData) == "md5-7mkg+nM0HN26sZkLN8KVSA==")
        let inline = try await temp.store.document(id: "a", options: ReadOptions(attachments: true))
        #expect(inline["_attachments"]?["note.txt"]?["data"] == .string(helloBase64))
        let stored = try await temp.store.document(id: "a", options: ReadOptions(attachments: true, attachmentsAsStored: true))
        #expect(stored["_attachments"]?["note.txt"]?["data"] == .string(Base64.encode(attachment.storedData)))
        #expect(stored["_attachments"]?["note.txt"]?["length"] == 11)
    }

    @Test func anEmptyCompressibleAttachmentIsStillGzipEncodedAsCouchDBDoes() async throws {
        let temp = try TemporaryStore()
        let stub = try await putAttachment("e.txt", contentType: "text/plain", data: "", id: "e", in: temp.store)
        #expect(stub?["digest"] == "md5-cCkGbCesb17xjWYNV0GXmg==")
        #expect(stub?["encoded_length"] == 20)
        #expect(stub?["length"] == 0)
    }

    @Test func compressionCanBeTurnedOff() async throws {
        var options = StoreOptions()
        options.attachmentCompression = .none
        let temp = try TemporaryStore(options: options)
        let stub = try await putAttachment("n.txt", contentType: "text/plain", data: helloBase64, in: temp.store)
        #expect(stub?["digest"] == "md5-XrY7u+Ae7tCTyyK7j1rNww==")
    }

    @Test(arguments: [
        ("text/plain", true), ("TEXT/HTML; charset=utf-8", true), ("application/json", true), ("application/xml", true),
        ("application/javascript", true), ("image/png", false), ("application/octet-stream", false),
        ("application/jsonx", false), ("", false),
    ])
    func couchDBsCompressibleTypes(type: String, compressed: Bool) {
        #expect(AttachmentCompression.couchDB.compresses(type) == compressed)
    }

    @Test func aStubKeepsTheAttachmentAndItsRevposAcrossEdits() async throws {
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

    @Test func anAttachmentNotListedInAnEditIsDropped() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put([
            "_id": "a", "_attachments": ["n": ["content_type": "text/plain", "data": .string(helloBase64)]],
        ])
        try await temp.store.put(["_id": "a", "_rev": .string(first.rev)])
        #expect(try await temp.store.document(id: "a")["_attachments"] == nil)
        // The old revision still has it, until compaction.
        let old = try await temp.store.attachment(documentID: "a", name: "n", rev: first.rev)
        #expect(try old.data().count == 11)
    }

    @Test func newDataInAnEditGetsTheNewGenerationAsRevposEvenIfTheClientSentAnOldOne() async throws {
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
        // As CouchDB sends it: the content with its (gzip-based) digest, then an edit carrying a stub.
        _ = try await temp.store.bulkDocs(
            [[
                "_id": "x", "_rev": .string(rev(1, "a")),
                "_attachments": ["a": ["content_type": "text/plain", "data": .string(helloBase64), "revpos": 1, "digest": "md5-7mkg+nM0HN26sZkLN8KVSA=="]],
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
        #expect(doc["_attachments"]?["a"]?["digest"] == "md5-7mkg+nM0HN26sZkLN8KVSA==")
        #expect(try await temp.store.attachment(documentID: "x", name: "a").data() == Array("hello world".utf8))
    }

    /// Bytes that match no digest their sender could have meant are refused before anything
    /// is stored; a digest of the content as written (a sender that keeps it unencoded) is fine.
    @Test func aReplicatedAttachmentThatMatchesNoDigestIsRefusedAndNothingIsStored() async throws {
        let temp = try TemporaryStore()
        func replicate(_ id: String, digest: String, extra: JSONObject = [:]) async throws -> [BulkDocsResult] {
            var attachment: JSONObject = ["content_type": "text/plain", "data": .string(helloBase64), "revpos": 1, "digest": .string(digest)]
            for (key, value) in extra.members { attachment[key] = value }
            return try await temp.store.bulkDocs(
                [["_id": .string(id), "_rev": .string(rev(1, "a")), "_attachments": ["a": .object(attachment)]]], newEdits: false)
        }
        let refused = try await replicate("bad", digest: "md5-AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(refused.first?.error?.code == .attachmentDigestMismatch)
        #expect(refused.first?.error?.code == .attachmentDigestMismatch)
        await #expect(throws: CloudantError.self) { try await temp.store.document(id: "bad") }

        #expect(try await replicate("identity", digest: "md5-XrY7u+Ae7tCTyyK7j1rNww==").isEmpty)
        // Stored as this store keeps text: gzip, with the gzip digest.
        #expect(try await temp.store.document(id: "identity")["_attachments"]?["a"]?["digest"] == "md5-7mkg+nM0HN26sZkLN8KVSA==")

        // A sender that says it keeps the content encoded (other compression settings) cannot be checked.
        #expect(try await replicate("level1", digest: "md5-15xg8WWXcSnuuBnYaz68fg==", extra: ["encoding": "gzip"]).isEmpty)
    }

    /// Gzip bytes as CouchDB's replicator sends them in a part are kept as they are, so the digest of any
    /// compression level survives; damaged gzip or a wrong length is refused.
    @Test func gzipContentIsKeptAsSentAndCheckedAgainstItsLength() async throws {
        let temp = try TemporaryStore()
        let level1 = try #require(Gzip.encode(Array("hello world".utf8), level: 1))
        var incoming = try IncomingDocument(["_id": "g", "_rev": .string(rev(1, "a"))])
        incoming.attachments = [
            "a.txt": .data(
                IncomingAttachmentData(
                    contentType: "text/plain", bytes: level1, encoding: .gzip, length: 11, revpos: 1,
                    digest: AttachmentDigest.of(level1), isMultipartPart: true))
        ]
        #expect(try await temp.store.bulkDocs(parsed: [incoming], newEdits: false).isEmpty)
        let stored = try await temp.store.attachment(documentID: "g", name: "a.txt")
        #expect(stored.storedData == level1)
        #expect(stored.info.digest == "md5-15xg8WWXcSnuuBnYaz68fg==")
        #expect(try stored.data() == Array("hello world".utf8))

        var wrongLength = incoming
        wrongLength.id = "g2"
        if case .data(var data)? = wrongLength.attachments?["a.txt"] {
            data.length = 12
            wrongLength.attachments?["a.txt"] = .data(data)
        }
        #expect(try await temp.store.bulkDocs(parsed: [wrongLength], newEdits: false).first?.error?.code == .invalidInput)
        var damaged = incoming
        damaged.id = "g3"
        if case .data(var data)? = damaged.attachments?["a.txt"] {
            data.bytes[12] ^= 0xFF
            data.digest = AttachmentDigest.of(data.bytes)
            damaged.attachments?["a.txt"] = .data(data)
        }
        #expect(try await temp.store.bulkDocs(parsed: [damaged], newEdits: false).first?.error?.code == .invalidInput)
    }

    @Test func aStubForAnUnknownAttachmentIsMissingStub() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a"])
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "_attachments": ["x": ["stub": true]]])
        }
        #expect(error?.code == .missingStub)
        #expect(error?.category == .preconditionFailed)
    }

    @Test func attsSinceInlinesOnlyNewerAttachments() async throws {
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
    ])
    func malformedAttachmentsAreTypedErrors(attachments: JSONValue) async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_attachments": attachments])
        }
        #expect(error?.code == .invalidInput)
    }

    /// `couch_doc:transfer_fields/3` reads only the `_attachments` members that are objects: the others are
    /// dropped unread, their names unchecked.
    @Test func attachmentMembersThatAreNotObjectsAreDropped() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a", "_attachments": ["x": "text", "_y": 1, "z": ["content_type": "text/plain", "data": "YQ=="]]])
        let attachments = try await temp.store.document(id: "a")["_attachments"]?.objectValue
        #expect(attachments?.keys == ["z"])
    }

    /// An attachment given as content the store holds keeps its metadata and `revpos`; content the store
    /// does not hold is refused by name.
    @Test func storedContentIsNamedByDigestAndKeepsItsRevpos() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a"])
        _ = try await temp.store.put([
            "_id": "a", "_rev": .string(first.rev), "_attachments": ["x": ["content_type": "text/plain", "data": "aGVsbG8="]],
        ])
        let info = try await temp.store.attachment(documentID: "a", name: "x").info
        #expect(info.revpos == 2)
        var copy = try IncomingDocument(["_id": "b", "n": 1])
        copy.attachments = ["x": .stored(info)]
        copy.attachmentOrder = ["x"]
        _ = try await temp.store.put(copy)
        let copied = try await temp.store.attachment(documentID: "b", name: "x")
        #expect(copied.info == info)
        #expect(try copied.data() == Array("hello".utf8))
        var missing = try IncomingDocument(["_id": "c"])
        var absent = info
        absent.digest = "md5-AAAAAAAAAAAAAAAAAAAAAA=="
        missing.attachments = ["x": .stored(absent)]
        missing.attachmentOrder = ["x"]
        let error = await #expect(throws: CloudantError.self) { try await temp.store.put(missing) }
        #expect(error?.code == .missingStub)
        await #expect(throws: CloudantError.self) { try await temp.store.document(id: "c") }
    }
}
