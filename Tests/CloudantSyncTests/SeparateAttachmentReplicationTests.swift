import CloudantCore
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing

/// Large attachments replicate on their own, in pieces, between peers that can move them so.
@Suite("Large attachments in replication")
struct SeparateAttachmentReplicationTests {
    /// `bytes` as one async piece sequence.
    struct Once: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        let bytes: [UInt8]
        struct AsyncIterator: AsyncIteratorProtocol {
            var bytes: [UInt8]?
            mutating func next() async throws -> [UInt8]? {
                defer { bytes = nil }
                return bytes
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes) }
    }

    /// `count` random bytes from the kernel (a per-byte generator is slow in debug builds, and several
    /// megabytes of it starved the rest of the suite on two cores).
    static func randomBytes(_ count: Int) -> [UInt8] {
        Array(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: count) ?? Data(count: count))
    }

    /// A local peer that counts what it receives separately, or (`separately: false`) receives nothing
    /// separately, as a peer without that ability; `checkWrite` sees every batch written.
    struct CountingPeer: WrappingReplicationPeer {
        let inner: LocalPeer
        var separately = true
        var checkWrite: @Sendable ([JSONObject]) -> Void = { _ in }
        let received = Counter()
        var base: any ReplicationPeer { inner }
        func write(_ documents: [JSONObject]) async throws -> [WriteFailure] {
            checkWrite(documents)
            return try await inner.write(documents)
        }
        func ensureFullCommit() async throws {}
        var receivesLargeAttachmentsSeparately: Bool { separately }
        func receive(_ attachment: PeerAttachment, documentID: String, name: String) async throws -> JSONValue {
            received.increment()
            return try await inner.receive(attachment, documentID: documentID, name: name)
        }
    }

    final class Counter: @unchecked Sendable {
        // `lock` protects `value`.
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    /// Replication that moves attachments over 64 KB on their own.
    static let separatelyOver64KB = {
        var options = ReplicationOptions()
        options.separateAttachmentSize = 64 * 1024
        return options
    }()

    /// Expects document `visit` in `copy` to equal the one in `original` (`why` says how its stubs stayed the
    /// same) and its attachments `scan.bin` and `notes.txt` to hold `scan` and `notes`; returns the copy.
    @discardableResult
    private func expectSameVisit(
        in copy: DocumentStore, as original: DocumentStore, scan: [UInt8], notes: [UInt8], _ why: Comment
    ) async throws -> JSONObject {
        let copied = try await copy.document(id: "visit", options: ReadOptions(attachmentEncodingInfo: true))
        let kept = try await original.document(id: "visit", options: ReadOptions(attachmentEncodingInfo: true))
        #expect(copied == kept, why)
        #expect(try await copy.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(try await copy.attachment(documentID: "visit", name: "notes.txt").data() == notes)
        return copied
    }

    @Test func largeAttachmentsMoveSeparatelyWithTheirDigestsAndOnlyWhenTheTargetLacksThem() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-separate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try DocumentStore.open(name: "a", in: StoreDirectory(path: folder.path))
        let b = try DocumentStore.open(name: "b", in: StoreDirectory(path: folder.path))
        let scan = Self.randomBytes(3 << 20)
        // Varied enough that even compressed it is over the 64 KB limit.
        let notes = Array((0..<40_000).map { "hr \(Int.random(in: 40...180)) spo2 \(Int.random(in: 90...100)) #\($0)\n" }.joined().utf8)
        let first = try await a.putAttachment("scan.bin", documentID: "visit", contentType: "application/octet-stream", content: Once(bytes: scan))
        let second = try await a.putAttachment("notes.txt", documentID: "visit", rev: first.rev, contentType: "text/plain", content: Once(bytes: notes))
        try await a.put(["_id": "small", "_attachments": ["s.txt": ["content_type": "text/plain", "data": "aGk="]]])

        let target = CountingPeer(inner: LocalPeer(b))
        let stats = try await Replicator(source: LocalPeer(a), target: target, options: Self.separatelyOver64KB).run()
        #expect(stats.docsWritten == 2)
        #expect(target.received.count == 2, "the two large ones moved separately, the small one inline")

        let copy = try await expectSameVisit(
            in: b, as: a, scan: scan, notes: notes, "same revision, same stubs: digests, lengths, encodings and revpos")
        #expect(copy["_rev"]?.stringValue == second.rev)

        // A new revision that keeps them moves nothing again: the target has them (atts_since).
        let current = try await a.document(id: "visit")
        var edited = current
        edited["seen"] = true
        try await a.put(edited)
        _ = try await Replicator(source: LocalPeer(a), target: target, options: Self.separatelyOver64KB).run()
        #expect(target.received.count == 2)
        #expect(try await b.document(id: "visit")["seen"] == true)
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: b.fileURL.path + "-attachments/staging")) ?? []
        #expect(staging.isEmpty, "every staged file was taken by its write")
    }

    @Test func aPeerThatCannotReceiveSeparatelyGetsLargeAttachmentsInline() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-separate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try DocumentStore.open(name: "a", in: StoreDirectory(path: folder.path))
        let b = try DocumentStore.open(name: "b", in: StoreDirectory(path: folder.path))
        let scan = Self.randomBytes(2 << 20)
        _ = try await a.putAttachment("scan.bin", documentID: "visit", contentType: "image/png", content: Once(bytes: scan))
        let inlineOnly = CountingPeer(inner: LocalPeer(b), separately: false) { documents in
            #expect(documents.allSatisfy { $0["_attachments"]?["scan.bin"]?["data"] != nil })
        }
        _ = try await Replicator(source: LocalPeer(a), target: inlineOnly).run()
        #expect(inlineOnly.received.count == 0)
        #expect(try await b.attachment(documentID: "visit", name: "scan.bin").data() == scan)
    }

    @Test func aPullOverHTTPDownloadsLargeAttachmentsToFilesAndKeepsTheirDigests() async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        let remote = try await setup.remote()
        let server = try setup.serverStore()
        let scan = Self.randomBytes(3 << 20)
        let notes = Array((0..<30_000).map { "bp \(Int.random(in: 90...160))/\(Int.random(in: 50...100)) #\($0)\n" }.joined().utf8)
        let first = try await server.putAttachment("scan.bin", documentID: "visit", contentType: "image/png", content: Once(bytes: scan))
        _ = try await server.putAttachment("notes.txt", documentID: "visit", rev: first.rev, contentType: "text/plain", content: Once(bytes: notes))
        try await server.put(["_id": "small", "_attachments": ["s.txt": ["content_type": "text/plain", "data": "aGk="]]])

        let target = CountingPeer(inner: LocalPeer(setup.local))
        let stats = try await Replicator(source: remote, target: target, options: Self.separatelyOver64KB).run()
        #expect(stats.docsWritten == 2)
        #expect(target.received.count == 2, "both large attachments were downloaded on their own")
        try await expectSameVisit(
            in: setup.local, as: server, scan: scan, notes: notes,
            "the same revision and stubs: the text recompressed to the same bytes and digest")
        #expect(try await setup.local.attachment(documentID: "small", name: "s.txt").data() == Array("hi".utf8))
        try server.close()
        await setup.stop()
    }

    @Test func aPushOverHTTPUploadsLargeAttachmentsAsMultipartFromDisk() async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        var remote = try await setup.remote()
        let spool = try TemporaryFolder("spool")
        remote.spoolDirectory = spool.url
        let scan = Self.randomBytes(3 << 20)
        let notes = Array((0..<30_000).map { "glucose \(Int.random(in: 60...240)) #\($0)\n" }.joined().utf8)
        let first = try await setup.local.putAttachment("scan.bin", documentID: "visit", contentType: "image/png", content: Once(bytes: scan))
        _ = try await setup.local.putAttachment(
            "notes.txt", documentID: "visit", rev: first.rev, contentType: "text/plain", content: Once(bytes: notes))
        try await setup.local.put(["_id": "plain", "v": 1])

        let stats = try await Replicator(source: LocalPeer(setup.local), target: remote, options: Self.separatelyOver64KB).run()
        #expect(stats.docsWritten == 2 && stats.docWriteFailures == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty, "spooled files are removed after the upload")
        let server = try setup.serverStore()
        try await expectSameVisit(
            in: server, as: setup.local, scan: scan, notes: notes,
            "the same revision and stubs: the gzip part kept its bytes and digest")
        try server.close()
        await setup.stop()
    }

    @Test func aDocumentUploadedOnItsOwnAndRefusedAsUnauthorizedIsCountedAndTheOthersGoOn() async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        _ = try await setup.remote()
        // A public database: anyone may write documents, only admins design documents (401 for the anonymous).
        let admin = TestClient(baseURL: setup.baseURL, user: (HTTPReplicationTests.Setup.admin.name, HTTPReplicationTests.Setup.admin.password))
        let security: JSONValue = ["admins": ["names": [], "roles": []], "members": ["names": [], "roles": []]]
        #expect(try await admin.send("PUT", "/cloud/_security", json: security).status == 200)
        try await setup.local.put(["_id": "plain", "v": 1])
        _ = try await setup.local.putAttachment(
            "big.bin", documentID: "_design/app", contentType: "application/octet-stream", content: Once(bytes: Self.randomBytes(256 << 10)))

        let anonymous = try HTTPPeer(url: URL(string: setup.baseURL + "/cloud")!)
        let stats = try await Replicator(source: LocalPeer(setup.local), target: anonymous, options: Self.separatelyOver64KB).run()
        #expect(stats.docsWritten == 1 && stats.docWriteFailures == 1)
        #expect(stats.failures.map(\.id) == ["_design/app"] && stats.failures.first?.error == "unauthorized")
        let server = try setup.serverStore()
        #expect(try await server.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["plain"])
        try server.close()
        await setup.stop()
    }

    @Test func largeAttachmentsAreSpooledInThePeersSpoolDirectory() async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        var remote = try await setup.remote()
        let spool = try TemporaryFolder("spool")
        let missing = spool.file("not-there")
        remote.spoolDirectory = missing
        _ = try await setup.local.putAttachment(
            "scan.bin", documentID: "visit", contentType: "image/png", content: Once(bytes: Self.randomBytes(256 << 10)))

        let error = await #expect(throws: (any Error).self) {
            try await Replicator(source: LocalPeer(setup.local), target: remote, options: Self.separatelyOver64KB).run()
        }
        #expect("\(error.map { String(describing: $0) } ?? "")".contains(missing.path), "the error names the folder it could not write to")
        await setup.stop()
    }
}
