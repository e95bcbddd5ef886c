import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// Replication with a live `CouchServer` on 127.0.0.1 (a random free port), through a real HTTP client.
@Suite("Replication over HTTP")
struct HTTPReplicationTests {
    /// A server and a local store, both in a fresh folder.
    final class Setup: @unchecked Sendable {
        // Immutable after start; `stop()` ends the server and removes the folder.
        let folder: URL
        let server: CouchServer
        let running: Task<Void, any Error>
        let baseURL: String
        let local: DocumentStore

        static let admin = ServerAdmin(name: "admin", password: "s3cret")

        init(folder: URL, server: CouchServer, running: Task<Void, any Error>, baseURL: String, local: DocumentStore) {
            self.folder = folder
            self.server = server
            self.running = running
            self.baseURL = baseURL
            self.local = local
        }

        static func start() async throws -> Setup {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-http-sync-\(UUID().uuidString)")
            let server = try CouchServer(
                configuration: ServerConfiguration(
                    host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder.appendingPathComponent("server").path),
                    admin: admin, passwordIterations: 1_000))
            let running = Task { try await server.run() }
            let baseURL = try await server.url()
            let local = try DocumentStore.open(name: "device", in: StoreDirectory(path: folder.appendingPathComponent("device").path))
            return Setup(folder: folder, server: server, running: running, baseURL: baseURL, local: local)
        }

        /// The remote database `db`, created if missing, reached at `base` (the server, or a proxy before it).
        func remote(_ db: String = "cloud", via base: String? = nil, authentication: RemoteAuthentication? = nil) async throws -> HTTPPeer {
            let peer = try HTTPPeer(
                url: URL(string: (base ?? baseURL) + "/" + db)!,
                authentication: authentication ?? .basic(user: Self.admin.name, password: Self.admin.password))
            try await peer.createIfMissing()
            return peer
        }

        /// Pushes the local store to `remote` and pulls it back, running both again while the network's faults
        /// make one give up after its retries (it resumes from its checkpoint); a failure of this side is thrown.
        func syncBothWays(with remote: HTTPPeer, options: ReplicationOptions) async throws {
            for _ in 0..<30 {
                do {
                    _ = try await Replicator(source: LocalPeer(local), target: remote, options: options).run()
                    _ = try await Replicator(source: remote, target: LocalPeer(local), options: options).run()
                    return
                } catch let error as CloudantError where error.code.isPeerFailure {
                    continue
                }
            }
        }

        /// The server's copy of `db`, opened directly for comparisons.
        func serverStore(_ db: String = "cloud") throws -> DocumentStore {
            try DocumentStore.open(name: db, in: StoreDirectory(path: folder.appendingPathComponent("server").path))
        }

        func stop() async {
            await server.shutdown()
            _ = await running.result
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func pushAndPullThroughTheHTTPEndpointCarryHistoriesConflictsAndAttachments() async throws {
        let setup = try await Setup.start()
        let remote = try await setup.remote()
        let base = try await setup.local.put(["_id": "note", "text": "base"])
        try await setup.local.put([
            "_id": "photo", "_attachments": ["a.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array("hi".utf8)))]],
        ])
        let pushed = try await Replicator(source: LocalPeer(setup.local), target: remote).run()
        #expect(pushed.docsWritten == 2)
        // A concurrent edit on the server, one on the device, then sync both ways.
        let serverCopy = try setup.serverStore()
        try await serverCopy.put(["_id": "note", "_rev": .string(base.rev), "text": "server"])
        try await setup.local.put(["_id": "note", "_rev": .string(base.rev), "text": "device"])
        _ = try await Replicator(source: LocalPeer(setup.local), target: remote).run()
        _ = try await Replicator(source: remote, target: LocalPeer(setup.local)).run()
        let here = try await setup.local.document(id: "note", options: ReadOptions(conflicts: true))
        let there = try await serverCopy.document(id: "note", options: ReadOptions(conflicts: true))
        #expect(here == there && here["_conflicts"]?.arrayValue?.count == 1)
        #expect(try await serverCopy.attachment(documentID: "photo", name: "a.txt").data() == Array("hi".utf8))
        await setup.stop()
    }

    @Test func credentialsInTheURLCookieSessionsAndRejectedPasswords() async throws {
        let setup = try await Setup.start()
        _ = try await setup.remote()
        try await setup.local.put(["_id": "x"])
        let inURL = try HTTPPeer(url: URL(string: setup.baseURL.replacingOccurrences(of: "http://", with: "http://admin:s3cret@") + "/cloud")!)
        #expect(try await inURL.identity().contains("admin") == false)  // credentials never name the replication
        #expect(try await Replicator(source: LocalPeer(setup.local), target: inURL).run().docsWritten == 1)
        let session = try await setup.remote(authentication: .session(user: "admin", password: "s3cret"))
        #expect(try await Replicator(source: session, target: LocalPeer(setup.local)).run().docsRead == 0)
        let wrong = try HTTPPeer(url: URL(string: setup.baseURL + "/cloud")!, authentication: .basic(user: "admin", password: "nope"))
        // 401 is final: no retries. A retry would first sleep the policy's ten minutes, so finishing inside the
        // (far shorter) generous deadline proves there was none, however loaded the machine is.
        let slowRetries = ReplicationOptions(
            retry: RetryPolicy(maximumAttempts: 3, initialDelay: TestDeadline.generous * 2, maximumDelay: TestDeadline.generous * 2))
        let started = ContinuousClock.now
        let error = await #expect(throws: CloudantError.self) {
            try await Replicator(source: wrong, target: LocalPeer(setup.local), options: slowRetries).run()
        }
        #expect(error?.context.status == 401)
        #expect(error?.category == .unauthorized)
        #expect(ContinuousClock.now - started < TestDeadline.generous)
        await setup.stop()
    }

    @Test(arguments: Array(1...20) as [UInt64])
    func syncThroughAFaultyNetworkConverges(seed: UInt64) async throws {
        let setup = try await Setup.start()
        let direct = try await setup.remote()
        let serverCopy = try setup.serverStore()
        // Shared history, then concurrent edits on both sides and documents only one side has.
        _ = try await setup.local.bulkDocs((0..<60).map { ["_id": .string("shared-\($0)"), "n": .number(JSONNumber($0))] })
        _ = try await Replicator(source: LocalPeer(setup.local), target: direct).run()
        // Which documents each side edits depends on the seed (a cheap deterministic mix).
        func pick(_ index: Int, _ salt: UInt64) -> UInt64 { (UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ seed &* salt) >> 33 }
        for index in 0..<60 where pick(index, 7) % 3 == 0 {
            let id = "shared-\(index)"
            let rev = try await setup.local.document(id: id)["_rev"] ?? nil
            try await setup.local.put(["_id": .string(id), "_rev": rev, "side": "device"])
            if pick(index, 13) % 2 == 0 { try await serverCopy.put(["_id": .string(id), "_rev": rev, "side": "server"]) }
        }
        _ = try await setup.local.bulkDocs((0..<40).map { ["_id": .string("device-\($0)")] })
        _ = try await serverCopy.bulkDocs((0..<40).map { ["_id": .string("server-\($0)")] })

        let proxy = try await FaultProxy.start(upstream: setup.baseURL, seed: seed, faultRate: 0.25)
        let flaky = try HTTPPeer(
            url: URL(string: proxy.url + "/cloud")!, authentication: .basic(user: Setup.admin.name, password: Setup.admin.password))
        let options = ReplicationOptions(
            batchSize: 15, retry: RetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(50)))
        // A replication that gives up after its retries is simply run again, resuming from its checkpoint.
        try await setup.syncBothWays(with: flaky, options: options)
        #expect(proxy.counters.injected > 0)
        await proxy.stop()
        let device = try await LocalReplicationTests.snapshot(setup.local)
        let server = try await LocalReplicationTests.snapshot(serverCopy)
        #expect(device == server, "seed \(seed)")
        for id in ["shared-0", "shared-3", "device-1", "server-2"] {
            let a = try await setup.local.document(id: id, options: ReadOptions(conflicts: true))
            let b = try await serverCopy.document(id: id, options: ReadOptions(conflicts: true))
            #expect(a == b, "seed \(seed) \(id)")
        }
        await setup.stop()
    }

    /// A document uploaded with its large attachments as `multipart/related` whose answer never came back is
    /// sent again, attachments and all, by the write's retry; the server stored it once.
    @Test func aMultipartUploadWhoseAnswerWasLostIsRetriedWithItsAttachments() async throws {
        let setup = try await Setup.start()
        _ = try await setup.remote()
        let scan = SeparateAttachmentReplicationTests.randomBytes(256 << 10)
        _ = try await setup.local.putAttachment(
            "scan.bin", documentID: "visit", contentType: "image/png", content: SeparateAttachmentReplicationTests.Once(bytes: scan))
        let uploads = Mutex(0)
        // The first upload reaches the server, which stores the document; its answer is cut off halfway.
        let proxy = try await FaultProxy.start(upstream: setup.baseURL, seed: 1, faultRate: 0) { method, path in
            guard method == "PUT", path == "/cloud/visit" else { return nil }
            return uploads.withLock { count in
                count += 1
                return count == 1 ? .dropResponse : FaultProxy.Fault.none
            }
        }
        var options = ReplicationOptions(retry: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(50)))
        options.separateAttachmentSize = 64 * 1024
        let flaky = try await setup.remote(via: proxy.url)
        let pushed = try await Replicator(source: LocalPeer(setup.local), target: flaky, options: options).run()
        await proxy.stop()
        #expect(uploads.withLock { $0 } == 2)
        #expect(pushed.docsWritten == 1 && pushed.docWriteFailures == 0)
        let server = try setup.serverStore()
        #expect(try await server.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(try await server.document(id: "visit")["_rev"] == (try await setup.local.document(id: "visit"))["_rev"])
        try server.close()
        await setup.stop()
    }

    @Test func aReplicationKilledMidwayResumesFromItsCheckpoint() async throws {
        let setup = try await Setup.start()
        let remote = try await setup.remote()
        _ = try await setup.local.bulkDocs((0..<400).map { ["_id": .string(String(format: "d%04d", $0))] })
        let replicator = Replicator(source: LocalPeer(setup.local), target: remote, options: ReplicationOptions(batchSize: 40))
        let running = Task { try await replicator.run() }
        var written = 0
        for await step in replicator.progress {
            written = step.stats.docsWritten
            if written >= 160 {
                replicator.cancel()
                break
            }
        }
        _ = await running.result
        let resumed = try await Replicator(source: LocalPeer(setup.local), target: remote, options: ReplicationOptions(batchSize: 40)).run()
        #expect(written >= 160)
        // Only what the first run had not checkpointed moves again: at most one batch twice.
        #expect(resumed.changesRead <= 400 - written + 40)
        #expect(resumed.changesRead < 400)
        #expect(try await setup.serverStore().info().documentCount == 400)
        await setup.stop()
    }
}

/// Our replicator against a peer that holds it to CouchDB's request rules — our server
/// (which refuses what CouchDB refuses) behind a proxy that audits every request and drops connections
/// between batches.
@Suite("Replication against a strict peer")
struct StrictPeerReplicationTests {
    @Test func pushAndPullSendOnlyRequestsCouchDBAcceptsAndConvergeThroughFaults() async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        let direct = try await setup.remote()
        let serverCopy = try setup.serverStore()
        // Documents with text (gzip-stored) and binary attachments, a conflict and a tombstone on each side.
        for index in 0..<40 {
            var document: JSONObject = ["_id": .string("d\(index)"), "n": .number(JSONNumber(index))]
            if index % 5 == 0 {
                document["_attachments"] = [
                    "t.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array(String(repeating: "note ", count: 40).utf8)))],
                    "b.bin": ["content_type": "application/octet-stream", "data": .string(Base64.encode((0..<64).map(UInt8.init)))],
                ]
            }
            try await setup.local.put(document)
        }
        _ = try await Replicator(source: LocalPeer(setup.local), target: direct).run()
        let shared = try await setup.local.document(id: "d1")
        try await setup.local.put(["_id": "d1", "_rev": shared["_rev"] ?? .null, "side": "device"])
        try await serverCopy.put(["_id": "d1", "_rev": shared["_rev"] ?? .null, "side": "server"])
        let doomed = try await setup.local.document(id: "d2")
        try await setup.local.delete(id: "d2", rev: doomed["_rev"]?.stringValue ?? "")
        try await serverCopy.put([
            "_id": "s1", "_attachments": ["s.json": ["content_type": "application/json", "data": .string(Base64.encode(Array("{\"a\":1}".utf8)))]],
        ])

        let audit = CouchRequestAudit()
        let proxy = try await FaultProxy.start(upstream: setup.baseURL, seed: 14, faultRate: 0.2, audit: audit)
        let strict = try HTTPPeer(
            url: URL(string: proxy.url + "/cloud")!,
            authentication: .basic(user: HTTPReplicationTests.Setup.admin.name, password: HTTPReplicationTests.Setup.admin.password))
        let options = ReplicationOptions(
            batchSize: 7, retry: RetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(50)))
        try await setup.syncBothWays(with: strict, options: options)
        #expect(proxy.counters.injected > 0)
        await proxy.stop()
        #expect(audit.checked > 10)
        #expect(audit.recorded.isEmpty, "\(audit.recorded.prefix(5))")
        let device = try await LocalReplicationTests.snapshot(setup.local)
        let server = try await LocalReplicationTests.snapshot(serverCopy)
        #expect(device == server)
        let digest = try await serverCopy.attachment(documentID: "d0", name: "t.txt").info.digest
        #expect(try await setup.local.attachment(documentID: "d0", name: "t.txt").info.digest == digest)
        await setup.stop()
    }
}
