import AsyncHTTPClient
import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantSyncNIO
import CloudantTestSupport
import Foundation
import NIOSSL
import Synchronization
import Testing

/// The replicator behaves the same over either transport: URLSession (libcurl) and AsyncHTTPClient (SwiftNIO).
@Suite("HTTP transports: URLSession and AsyncHTTPClient")
struct HTTPTransportTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case urlSession, asyncHTTPClient

        func make() -> any HTTPTransport {
            switch self {
            case .urlSession: URLSessionTransport()
            case .asyncHTTPClient: AsyncHTTPClientTransport()
            }
        }

        var testDescription: String { rawValue }
    }

    /// One attempt per request: a test of a failure must see the failure, not a retry's sleep.
    static let once = ReplicationOptions(retry: RetryPolicy(maximumAttempts: 1))

    static func peer(
        _ setup: HTTPReplicationTests.Setup, _ kind: Kind, _ db: String = "cloud",
        authentication: RemoteAuthentication = .basic(user: "admin", password: "s3cret"), timeout: Duration = .seconds(60)
    ) throws -> HTTPPeer {
        try HTTPPeer(
            url: URL(string: setup.baseURL + "/" + db)!, authentication: authentication, timeout: timeout, transport: kind.make())
    }

    @Test(arguments: Kind.allCases)
    func pushAndPullCarryHistoriesConflictsAndLargeAttachmentsBothWays(kind: Kind) async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        let remote = try Self.peer(setup, kind)
        try await remote.createIfMissing()
        let scan = SeparateAttachmentReplicationTests.randomBytes(1 << 20)
        let notes = Array((0..<20_000).map { "pulse \(Int.random(in: 50...150)) #\($0)\n" }.joined().utf8)
        let first = try await setup.local.putAttachment(
            "scan.bin", documentID: "visit", contentType: "image/png", content: SeparateAttachmentReplicationTests.Once(bytes: scan))
        _ = try await setup.local.putAttachment(
            "notes.txt", documentID: "visit", rev: first.rev, contentType: "text/plain",
            content: SeparateAttachmentReplicationTests.Once(bytes: notes))
        let base = try await setup.local.put(["_id": "note", "text": "base"])
        var options = ReplicationOptions()
        options.separateAttachmentSize = 64 * 1024

        // Push (the large attachments go up as multipart from disk), then concurrent edits on both sides.
        let pushed = try await Replicator(source: LocalPeer(setup.local), target: remote, options: options).run()
        #expect(pushed.docsWritten == 2 && pushed.docWriteFailures == 0)
        let server = try setup.serverStore()
        try await server.put(["_id": "note", "_rev": .string(base.rev), "text": "server"])
        try await setup.local.put(["_id": "note", "_rev": .string(base.rev), "text": "device"])
        _ = try await Replicator(source: LocalPeer(setup.local), target: remote, options: options).run()

        // Pull everything into a new store (the large attachments come down to files).
        let fresh = try DocumentStore.open(name: "fresh", in: StoreDirectory(path: setup.folder.appendingPathComponent("fresh").path))
        let pulled = try await Replicator(source: remote, target: LocalPeer(fresh), options: options).run()
        #expect(pulled.docsWritten == 3, "visit, and both branches of note")
        for id in ["visit", "note"] {
            let copy = try await fresh.document(id: id, options: ReadOptions(conflicts: true, attachmentEncodingInfo: true))
            let original = try await server.document(id: id, options: ReadOptions(conflicts: true, attachmentEncodingInfo: true))
            #expect(copy == original)
        }
        #expect(try await fresh.document(id: "note", options: ReadOptions(conflicts: true))["_conflicts"]?.arrayValue?.count == 1)
        #expect(try await fresh.attachment(documentID: "visit", name: "scan.bin").data() == scan)
        #expect(try await fresh.attachment(documentID: "visit", name: "notes.txt").data() == notes)
        try server.close()
        try fresh.close()
        await setup.stop()
    }

    @Test(arguments: Kind.allCases)
    func aCookieSessionLogsInAndLogsInAgainWhenTheServerEndsIt(kind: Kind) async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        try await setup.local.put(["_id": "a"])
        let remote = try Self.peer(setup, kind, authentication: .session(user: "admin", password: "s3cret"))
        try await remote.createIfMissing()
        #expect(try await Replicator(source: LocalPeer(setup.local), target: remote, options: Self.once).run().docsWritten == 1)

        // The server ends every session of admin; the peer's next request is refused, and it logs in again.
        let transport = kind.make()
        let ended = try await transport.send(
            HTTPTransportRequest(
                method: "DELETE", url: URL(string: setup.baseURL + "/_sessions?name=admin")!,
                headers: [("Authorization", "Basic " + Data("admin:s3cret".utf8).base64EncodedString())]))
        #expect(ended.status == 200, "\(String(decoding: ended.body, as: UTF8.self))")
        try await setup.local.put(["_id": "b"])
        #expect(try await Replicator(source: LocalPeer(setup.local), target: remote, options: Self.once).run().docsWritten == 1)
        await setup.stop()
    }

    @Test(arguments: Kind.allCases)
    func noOrWrongCredentialsAreUnauthorizedAtOnceAndAClosedPortIsUnreachable(kind: Kind) async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        let wrong = try Self.peer(setup, kind, authentication: .basic(user: "admin", password: "nope"))
        let refused = await #expect(throws: CloudantError.self) {
            try await Replicator(source: wrong, target: LocalPeer(setup.local), options: Self.once).run()
        }
        #expect(refused?.context.status == 401 && refused?.category == .unauthorized)
        // No credentials on a server that requires them: 401 with `WWW-Authenticate` (CouchDB's answer with
        // `require_valid_user`), which left a URLSession task suspended forever on Linux.
        let admin = TestClient(baseURL: setup.baseURL, user: (HTTPReplicationTests.Setup.admin.name, HTTPReplicationTests.Setup.admin.password))
        let required = try await admin.send("PUT", "/_node/_local/_config/chttpd/require_valid_user", body: Data("\"true\"".utf8))
        #expect(required.status == 200)
        let anonymous = try Self.peer(setup, kind, authentication: .none)
        let challenged = await #expect(throws: CloudantError.self) {
            try await Replicator(source: anonymous, target: LocalPeer(setup.local), options: Self.once).run()
        }
        #expect(challenged?.context.status == 401 && challenged?.category == .unauthorized)
        await setup.stop()

        // The server is gone: its port answers nothing.
        let gone = try Self.peer(setup, kind)
        let unreachable = await #expect(throws: CloudantError.self) {
            try await Replicator(source: gone, target: LocalPeer(setup.local), options: Self.once).run()
        }
        guard unreachable?.code == .peerUnreachable else {
            Issue.record("expected peerUnreachable, got \(String(describing: unreachable))")
            return
        }
    }

    /// A request whose task is cancelled ends with `.cancelled` at once, whether the cancellation comes before it
    /// starts or while it waits for an answer. The server here never answers, so only the cancellation can end
    /// a request; 200 requests cancelled before they start give any ordering race between the cancellation and
    /// the transport's bookkeeping its chances.
    @Test(arguments: Kind.allCases)
    func aCancelledRequestEndsAtOnceWhetherOrNotItHadStarted(kind: Kind) async throws {
        let silent = try LoopbackSocket(listening: true)
        defer { silent.close() }
        let transport = kind.make()
        let request = HTTPTransportRequest(
            method: "GET", url: URL(string: "http://127.0.0.1:\(silent.port)/db")!, headers: [], body: nil, timeout: 120)
        let outcomes = CancelledOutcomes()
        let count = 200
        for _ in 0..<count {
            Task {
                withUnsafeCurrentTask { $0?.cancel() }
                await outcomes.record { try await transport.send(request) }
            }
        }
        let started = Task { await outcomes.record { try await transport.send(request) } }
        try await Task.sleep(for: .milliseconds(200))
        started.cancel()
        // Generous for a loaded machine: a request that waits for the server would wait the 120 s of its timeout.
        let finished = await outcomes.wait(for: count + 1, upTo: .seconds(60))
        #expect(finished == count + 1, "\(count + 1 - finished) cancelled requests never ended")
        #expect(outcomes.nonCancelled.isEmpty, "\(outcomes.nonCancelled)")
    }

    /// How the requests of ``aCancelledRequestEndsAtOnceWhetherOrNotItHadStarted(kind:)`` ended.
    final class CancelledOutcomes: Sendable {
        private let state = Mutex((ended: 0, nonCancelled: [String]()))

        func record(_ request: () async throws -> HTTPTransportResponse) async {
            var outcome: String?
            do { outcome = "answered \(try await request().status)" } catch let error as CloudantError where error.code == .cancelled {
                outcome = nil
            } catch { outcome = "\(error)" }
            state.withLock { state in
                state.ended += 1
                if let outcome { state.nonCancelled.append(outcome) }
            }
        }

        var nonCancelled: [String] { state.withLock { $0.nonCancelled } }

        /// The number ended once `count` have, or when `limit` has passed (looked at once more after it).
        func wait(for count: Int, upTo limit: Duration) async -> Int {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline, state.withLock({ $0.ended }) < count {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return state.withLock { $0.ended }
        }
    }

    @Test(arguments: Kind.allCases)
    func aServerThatAcceptsButNeverAnswersTimesOut(kind: Kind) async throws {
        let silent = try LoopbackSocket(listening: true)
        defer { silent.close() }
        let peer = try HTTPPeer(
            url: URL(string: "http://127.0.0.1:\(silent.port)/db")!, timeout: .seconds(1), transport: kind.make())
        // The request's own timeout ends it (`.timedOut` comes from nowhere else); how soon is not asserted, as
        // a loaded machine runs the test late.
        let error = await #expect(throws: CloudantError.self) {
            _ = try await peer.info()
        }
        #expect(error?.category == .timedOut, "\(String(describing: error))")
    }

    @Test func asyncHTTPClientWithItsOwnTLSConfigurationReplicatesWithAPrivateCertificate() async throws {
        let folder = NSTemporaryDirectory() + "cloudant-transport-tls-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tls = try await ServerTLS.selfSigned(in: folder)
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder + "/server"),
            admin: HTTPReplicationTests.Setup.admin, passwordIterations: 1_000)
        configuration.tls = tls
        let server = try CouchServer(configuration: configuration)
        let running = Task { try await server.run() }
        let url = try await server.url()
        #expect(url.hasPrefix("https://"))
        let local = try DocumentStore.open(name: "device", in: StoreDirectory(path: folder + "/device"))
        try await local.put(["_id": "vitals", "pulse": 61])

        var clientConfiguration = HTTPClient.Configuration()
        var trust = TLSConfiguration.makeClientConfiguration()
        trust.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(tls.certificatePath))
        clientConfiguration.tlsConfiguration = trust
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        do {
            let remote = try HTTPPeer(
                url: URL(string: url + "/cloud")!, authentication: .basic(user: "admin", password: "s3cret"),
                transport: AsyncHTTPClientTransport(client: client))
            try await remote.createIfMissing()
            #expect(try await Replicator(source: LocalPeer(local), target: remote, options: Self.once).run().docsWritten == 1)

            // The shared client trusts only the system's CAs: the same server is refused, not answered.
            let untrusting = try HTTPPeer(
                url: URL(string: url + "/cloud")!, authentication: .basic(user: "admin", password: "s3cret"),
                transport: AsyncHTTPClientTransport())
            await #expect(throws: CloudantError.self) { _ = try await untrusting.info() }
        } catch {
            Issue.record(error)
        }
        try await client.shutdown()
        try local.close()
        await server.shutdown()
        _ = await running.result
    }
}
