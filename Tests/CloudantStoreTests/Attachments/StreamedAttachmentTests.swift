@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Attachments that stream in and out in pieces, and the files that keep large ones beside the store.
@Suite struct StreamedAttachmentTests {
    /// `bytes` in pieces of `size`, as an upload or a file read in chunks arrives.
    struct Pieces: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        let bytes: [UInt8]
        var size = 64 * 1024
        struct AsyncIterator: AsyncIteratorProtocol {
            let bytes: [UInt8]
            let size: Int
            var offset = 0
            mutating func next() async throws -> [UInt8]? {
                guard offset < bytes.count else { return nil }
                defer { offset += size }
                return Array(bytes[offset..<Swift.min(bytes.count, offset + size)])
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes, size: size) }
    }

    /// `count` random bytes from the kernel (a per-byte generator is slow in debug builds, and several
    /// megabytes of it starved the rest of the suite on two cores).
    static func randomBytes(_ count: Int) -> [UInt8] {
        Array(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: count) ?? Data(count: count))
    }

    static func text(_ count: Int) -> [UInt8] {
        Array((0..<count).map { "line \($0 / 40) of a care note\n" }.joined().utf8.prefix(count))
    }

    static func collect(_ pieces: AttachmentPieces) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await piece in pieces { bytes += piece }
        return bytes
    }

    static func files(of store: DocumentStore) -> [String] {
        let folder = store.fileURL.path + "-attachments"
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0 != "staging" }
    }

    static func stagingFiles(of store: DocumentStore) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.fileURL.path + "-attachments/staging")) ?? []
    }

    @Test func aLargeAttachmentStreamsIntoAFileBesideTheStoreAndReadsBackInPieces() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let bytes = Self.randomBytes(3 * 1024 * 1024 + 17)
        let result = try await store.putAttachment(
            "scan.bin", documentID: "visit", contentType: "application/octet-stream", content: Pieces(bytes: bytes))
        #expect(result.rev.hasPrefix("1-"))

        let content = try await store.attachmentContent(documentID: "visit", name: "scan.bin")
        #expect(content.info.digest == AttachmentDigest.of(bytes))
        #expect(content.info.length == bytes.count && content.info.encoding == .identity && content.info.revpos == 1)
        #expect(try await Self.collect(content.contentBytes(pieceSize: 100_000)) == bytes)
        #expect(try await Self.collect(content.storedBytes(in: 1_000_000..<1_000_100)) == Array(bytes[1_000_000..<1_000_100]))
        #expect(try await store.attachment(documentID: "visit", name: "scan.bin").data() == bytes)
        #expect(Self.files(of: store).count == 1)
        #expect(Self.stagingFiles(of: store).isEmpty)

        // The document carries the usual stub; its revision hash covers the digest like any attachment's.
        let document = try await store.document(id: "visit")
        #expect(document["_attachments"]?["scan.bin"]?["digest"]?.stringValue == AttachmentDigest.of(bytes))
        #expect(document["_attachments"]?["scan.bin"]?["length"] == .number(JSONNumber(bytes.count)))
    }

    @Test func aCompressibleAttachmentIsCompressedOnTheWayToCouchDBsExactBytes() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let text = Self.text(2 * 1024 * 1024)
        _ = try await store.putAttachment("notes.txt", documentID: "patient", contentType: "text/plain", content: Pieces(bytes: text, size: 7_777))
        let content = try await store.attachmentContent(documentID: "patient", name: "notes.txt")
        let whole = try #require(Gzip.encode(text, level: 8))
        #expect(content.info.encoding == .gzip)
        #expect(content.info.digest == AttachmentDigest.of(whole), "streamed compression gives one-shot zlib's bytes")
        #expect(content.info.length == text.count && content.info.encodedLength == whole.count)
        #expect(try await Self.collect(content.contentBytes()) == text)
        #expect(try await Self.collect(content.storedBytes()) == whole)
    }

    @Test func aGzipUploadIsKeptAsSentAndADamagedOneStoresNothing() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let text = Self.text(600_000)
        let gzip = try #require(Gzip.encode(text, level: 6))
        _ = try await store.putAttachment(
            "log.txt", documentID: "a", contentType: "text/plain", encoding: .gzip, length: text.count,
            content: Pieces(bytes: gzip, size: 1000))
        let content = try await store.attachmentContent(documentID: "a", name: "log.txt")
        #expect(content.info.digest == AttachmentDigest.of(gzip) && content.info.length == text.count)
        #expect(try await Self.collect(content.contentBytes()) == text)

        let cut = Array(gzip.dropLast(9))
        let error = await #expect(throws: CloudantError.self) {
            try await store.putAttachment("log.txt", documentID: "b", contentType: "text/plain", encoding: .gzip, content: Pieces(bytes: cut))
        }
        #expect(error?.code == .invalidInput)
        let wrongLength = await #expect(throws: CloudantError.self) {
            try await store.putAttachment(
                "log.txt", documentID: "b", contentType: "text/plain", encoding: .gzip, length: text.count - 1,
                content: Pieces(bytes: gzip))
        }
        #expect(wrongLength?.code == .invalidInput)
        await #expect(throws: CloudantError.self) { try await store.document(id: "b") }
        #expect(Self.stagingFiles(of: store).isEmpty)
    }

    @Test func aDigestThatDoesNotMatchOrAnAttachmentOverTheLimitStoresNothing() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let bytes = Self.randomBytes(300_000)
        let mismatch = await #expect(throws: CloudantError.self) {
            try await store.putAttachment(
                "x.bin", documentID: "a", contentType: "image/png", digest: AttachmentDigest.of([1, 2, 3]), content: Pieces(bytes: bytes))
        }
        #expect(mismatch?.code == .attachmentDigestMismatch)
        let tooLarge = await #expect(throws: CloudantError.self) {
            try await store.putAttachment("x.bin", documentID: "a", contentType: "image/png", maxLength: 200_000, content: Pieces(bytes: bytes))
        }
        #expect(tooLarge?.code == .attachmentTooLarge)
        await #expect(throws: CloudantError.self) { try await store.document(id: "a") }
        #expect(Self.files(of: store).isEmpty && Self.stagingFiles(of: store).isEmpty)

        // The right digest (of the content as sent) is accepted.
        _ = try await store.putAttachment(
            "x.bin", documentID: "a", contentType: "image/png", digest: AttachmentDigest.of(bytes), content: Pieces(bytes: bytes))
    }

    @Test func aStaleRevisionIsAConflictAndLeavesNoStagingFile() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let first = try await store.put(["_id": "a", "v": 1])
        _ = try await store.put(["_id": "a", "_rev": .string(first.rev), "v": 2])
        let error = await #expect(throws: CloudantError.self) {
            try await store.putAttachment(
                "x.bin", documentID: "a", rev: first.rev, contentType: "image/png", content: Pieces(bytes: Self.randomBytes(200_000)))
        }
        #expect(error?.code == .conflict)
        #expect(Self.stagingFiles(of: store).isEmpty && Self.files(of: store).isEmpty)
    }

    @Test func smallAttachmentsStayInTheDatabaseAndLargeInlineOnesGoToFilesToo() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        _ = try await store.putAttachment("small.bin", documentID: "a", contentType: "image/png", content: Pieces(bytes: Self.randomBytes(10_000)))
        #expect(Self.files(of: store).isEmpty)
        // The whole-bytes paths (inline base64, multipart, replication) keep large content in files as well.
        let large = Self.randomBytes(200_000)
        _ = try await store.put([
            "_id": "b", "_attachments": ["big.bin": ["content_type": "image/png", "data": .string(Base64.encode(large))]],
        ])
        #expect(Self.files(of: store).count == 1)
        #expect(try await store.attachment(documentID: "b", name: "big.bin").data() == large)
        let inline = try await store.document(id: "b", options: ReadOptions(attachments: true))
        #expect(inline["_attachments"]?["big.bin"]?["data"]?.stringValue == Base64.encode(large))
        let stats = try await store.storageStats()
        #expect(stats.attachmentBytes == Int64(10_000 + 200_000))
    }

    @Test func aFileIsRemovedWithTheLastRevisionThatRefersToIt() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let bytes = Self.randomBytes(400_000)
        let a = try await store.putAttachment("x.bin", documentID: "a", contentType: "image/png", content: Pieces(bytes: bytes))
        let b = try await store.putAttachment("x.bin", documentID: "b", contentType: "image/png", content: Pieces(bytes: bytes))
        #expect(Self.files(of: store).count == 1, "one file per digest")

        // An open reader keeps its bytes even while compaction removes the file's name.
        let reader = try await store.attachmentContent(documentID: "a", name: "x.bin")
        _ = try await store.put(["_id": "a", "_rev": .string(a.rev)])
        try await store.compact()
        #expect(Self.files(of: store).count == 1, "b still refers to it")
        _ = try await store.delete(id: "b", rev: b.rev)
        try await store.compact()
        #expect(Self.files(of: store).isEmpty)
        #expect(try await Self.collect(reader.contentBytes()) == bytes)

        // Purge drops them too.
        let c = try await store.putAttachment("y.bin", documentID: "c", contentType: "image/png", content: Pieces(bytes: bytes))
        #expect(Self.files(of: store).count == 1)
        try await store.purge(["c": [c.rev]])
        #expect(Self.files(of: store).isEmpty)
    }

    @Test func filesACrashLeftBehindAreSweptWhenTheStoreOpensAndReferencedOnesStay() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let bytes = Self.randomBytes(300_000)
        _ = try await store.putAttachment("x.bin", documentID: "a", contentType: "image/png", content: Pieces(bytes: bytes))
        let folder = store.fileURL.path + "-attachments"
        let old = Date().addingTimeInterval(-3600)
        for path in [folder + "/00112233445566778899aabbccddeeff", folder + "/staging/half-written"] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])))
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }
        let fresh = folder + "/ffeeddccbbaa99887766554433221100"
        #expect(FileManager.default.createFile(atPath: fresh, contents: Data([4])))
        let kept = Self.files(of: store).first { $0 != "00112233445566778899aabbccddeeff" && $0 != "ffeeddccbbaa99887766554433221100" }
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder + "/" + (kept ?? ""))

        let reopened = try temporary.reopen()
        #expect(Set(Self.files(of: reopened)) == [kept ?? "", "ffeeddccbbaa99887766554433221100"], "another process's fresh file is left alone")
        #expect(Self.stagingFiles(of: reopened).isEmpty)
        #expect(try await reopened.attachment(documentID: "a", name: "x.bin").data() == bytes)
        try reopened.close()
    }

    @Test func deletingAStoreRemovesItsAttachmentFolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-att-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = StoreDirectory(path: folder.path)
        let store = try DocumentStore.open(name: "scans", in: directory)
        _ = try await store.putAttachment("x.bin", documentID: "a", contentType: "image/png", content: Pieces(bytes: Self.randomBytes(200_000)))
        let attachments = store.fileURL.path + "-attachments"
        #expect(FileManager.default.fileExists(atPath: attachments))
        try store.close()
        try directory.deleteStore("scans")
        #expect(!FileManager.default.fileExists(atPath: attachments))
    }
}
