import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whatever stops a replication is a `CloudantError` whose code a caller can switch on, with the
/// failing URL (never its credentials) and the peer's status; the retry policy classifies by its code.
@Suite("Replication errors")
struct ReplicationErrorTests {
    typealias Setup = HTTPReplicationTests.Setup
    typealias Stores = LocalReplicationTests.Stores

    @Test func anUnreachablePeerIsPeerUnreachableWithItsURLAndNoCredentials() async throws {
        let stores = try Stores()
        let port = try Self.unusedPort()
        let peer = try HTTPPeer(url: URL(string: "http://admin:hunter2@127.0.0.1:\(port)/faraway")!)
        let replicator = Replicator(source: peer, target: LocalPeer(stores.a), options: ReplicationOptions(retry: .never))
        let error = await #expect(throws: CloudantError.self) { try await replicator.run() }
        guard let error, error.code == .peerUnreachable, let url = error.context.url else {
            Issue.record("expected .peerUnreachable, got \(String(describing: error))")
            return
        }
        #expect(url.host == "127.0.0.1" && url.port == port && url.path.hasPrefix("/faraway"))
        #expect(url.user == nil && url.password == nil)
        #expect(error.message.count > "The peer could not be reached: ".count)
        #expect(error.context.status == nil)
        #expect(error.category == .unavailable)
        #expect(error.isRetryable == true)
        #expect(String(describing: error).contains("hunter2") == false)
    }

    @Test func aRefusedPasswordIsAPeerRefusalWith401InTheUnauthorizedCategoryAndIsFinal() async throws {
        let setup = try await Setup.start()
        _ = try await setup.remote()
        let url = URL(string: setup.baseURL.replacingOccurrences(of: "http://", with: "http://admin:wrong-pass@") + "/cloud")!
        let error = await #expect(throws: CloudantError.self) {
            try await Replicator(source: try HTTPPeer(url: url), target: LocalPeer(setup.local)).run()
        }
        guard let error, error.code == .peerRefused, let failing = error.context.url else {
            Issue.record("expected .peerRefused, got \(String(describing: error))")
            await setup.stop()
            return
        }
        #expect(error.context.status == 401)
        #expect(failing.path.hasPrefix("/cloud") && failing.user == nil && failing.password == nil)
        #expect(error.context.peerError == "unauthorized")
        #expect(error.context.peerReason == "Name or password is incorrect.")
        #expect(error.category == .unauthorized && error.isRetryable == false)  // final: never retried
        #expect(String(describing: error).contains("wrong-pass") == false)
        await setup.stop()
    }

    @Test func aDocumentTheTargetRefusesWithTheWholeBatchIsNamedAndTheOthersAreWritten() async throws {
        let setup = try await Setup.start()
        let remote = try await setup.remote()
        _ = try await setup.local.bulkDocs((0..<5).map { ["_id": .string("plain-\($0)")] })
        let note = try await setup.local.put(["_id": "note", "text": "hello"])
        // A source that hands out a member CouchDB refuses: the server refuses the whole `_bulk_docs` batch
        // (400 doc_validation); the batch is halved until the document is alone, and only it fails.
        let tampering = tamperingPeer(LocalPeer(setup.local), spoiling: "note")
        let stats = try await Replicator(source: tampering, target: remote, options: ReplicationOptions(retry: .never)).run()
        #expect(stats.docsWritten == 5)
        #expect(stats.docWriteFailures == 1)
        let failure = try #require(stats.failures.first)
        #expect(failure.id == "note" && failure.rev == note.rev)
        #expect(failure.error == "doc_validation" && failure.reason.contains("_bogus"))
        #expect(failure.category == .invalidInput)
        // The checkpoint stays before it: the next run reads it again (and names it again).
        let again = try await Replicator(source: tampering, target: remote, options: ReplicationOptions(retry: .never)).run()
        #expect(again.failures.map(\.id) == ["note"])
        await setup.stop()
    }

    @Test func cancellingAReplicationThatWaitsOnAPeerIsCancelledWithTheRequestCutShort() async throws {
        let setup = try await Setup.start()
        let remote = try await setup.remote()
        let replicator = Replicator(
            source: remote, target: LocalPeer(setup.local), options: ReplicationOptions(continuous: true, longpoll: .seconds(5)))
        let running = Task { try await replicator.run() }
        for await step in replicator.progress where step.state == .idle { break }
        try await Task.sleep(for: .milliseconds(300))  // the longpoll `_changes` request is now waiting
        replicator.cancel()
        let outcome = await running.result
        guard case .failure(let failure) = outcome, let error = failure as? CloudantError, error.code == .cancelled else {
            Issue.record("expected .cancelled, got \(outcome)")
            await setup.stop()
            return
        }
        #expect(error.context.url?.path == "/cloud/_changes")
        #expect(error.category == .unavailable && error.isRetryable == false)
        await setup.stop()
    }

    @Test func aFailureOfTheLocalStoreIsTheStoresOwnErrorNamingItsDatabase() async throws {
        let stores = try Stores()
        try await stores.a.put(["_id": "x"])
        try stores.b.close()
        let error = await #expect(throws: CloudantError.self) {
            try await Replicator(source: LocalPeer(stores.a), target: LocalPeer(stores.b)).run()
        }
        guard let error, !error.code.isPeerFailure else {
            Issue.record("expected the store's error, got \(String(describing: error))")
            return
        }
        #expect(error.context.url == nil)
        #expect(error.context.database == stores.b.name)
        #expect(error.isRetryable == false)
    }

    /// What the retry policy does with each code: the network's failures and overload are retried, refusals
    /// and this side's failures are not.
    @Test(arguments: [
        (CloudantError.peerUnreachable(url: Self.url, reason: "connection refused"), 3),
        (.peerTimedOut(url: Self.url, status: nil), 3),
        (.peerTimedOut(url: Self.url, status: 408), 3),
        (.peerRefused(url: Self.url, status: 503, error: "service_unavailable", reason: "busy"), 3),
        (.peerRefused(url: Self.url, status: 429, error: "too_many_requests", reason: "slow down"), 3),
        (.peerRefused(url: Self.url, status: 404, error: "not_found", reason: "Database does not exist."), 1),
        (.peerRefused(url: Self.url, status: 409, error: "conflict", reason: "Document update conflict."), 1),
        (.peerRefused(url: Self.url, status: 401, error: "unauthorized", reason: "Name or password is incorrect."), 1),
        (.peerRefused(url: Self.url, status: 403, error: "forbidden", reason: "You are not allowed to access this db."), 1),
        (.peerViolation(url: Self.url, violation: .tooSlow(bytes: 1, seconds: 30)), 3),
        (.peerViolation(url: Self.url, violation: .unrequestedDocument(id: "a", rev: "1-a")), 1),
        (CloudantError(.storeUnreadable, "disk"), 1),
    ])
    func theRetryPolicyRetriesOnlyWhatMaySucceedLater(failure: CloudantError, attempts: Int) async throws {
        let stores = try Stores()
        let failing = FailingPeer(failure)
        let options = ReplicationOptions(retry: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(2)))
        let error = await #expect(throws: CloudantError.self) {
            try await Replicator(source: failing, target: LocalPeer(stores.a), options: options).run()
        }
        #expect(failing.infoCalls.withLock { $0 } == attempts, "\(failure)")
        #expect(error?.isRetryable == (attempts > 1), "\(failure)")
        #expect(error?.code == failure.code && error?.category == failure.category)
        #expect(error?.context.status == failure.context.status)
    }

    @Test func eachPeerFailureHasTheCategoryOfItsStatusOrItsRule() {
        let expected: [(CloudantError, ErrorCategory)] = [
            (.peerUnreachable(url: Self.url, reason: "refused"), .unavailable),
            (.peerRefused(url: Self.url, status: 401, error: "unauthorized", reason: ""), .unauthorized),
            (.peerRefused(url: Self.url, status: 403, error: "forbidden", reason: ""), .forbidden),
            (.peerRefused(url: Self.url, status: 400, error: "bad_request", reason: ""), .invalidInput),
            (.peerRefused(url: Self.url, status: 404, error: "not_found", reason: ""), .notFound),
            (.peerRefused(url: Self.url, status: 409, error: "conflict", reason: ""), .conflict),
            (.peerRefused(url: Self.url, status: 412, error: "file_exists", reason: ""), .preconditionFailed),
            (.peerRefused(url: Self.url, status: 413, error: "too_large", reason: ""), .tooLarge),
            (.peerRefused(url: Self.url, status: 500, error: "unknown_error", reason: ""), .internal),
            (.peerRefused(url: Self.url, status: 501, error: "not_implemented", reason: ""), .unsupported),
            (.peerRefused(url: Self.url, status: 503, error: "service_unavailable", reason: ""), .unavailable),
            (.peerTimedOut(url: Self.url, status: nil), .timedOut),
            (.peerViolation(url: Self.url, violation: .deadlineExceeded(seconds: 60)), .timedOut),
            (.peerViolation(url: Self.url, violation: .unexpectedMediaType("text/html")), .unavailable),
            (.peerViolation(url: Self.url, violation: .bodyTooLarge(limit: 10)), .tooLarge),
            (.peerViolation(url: Self.url, violation: .missingRevision(id: "a", rev: "1-a")), .invalidInput),
            (.cancelled(url: nil), .unavailable),
        ]
        for (error, category) in expected {
            #expect(error.category == category, "\(error)")
            #expect(ErrorCategory(of: error) == category, "\(error)")
            #expect(error.code.isPeerFailure == (error.code != .cancelled), "\(error)")
        }
    }

    /// Every refusal is the one code `peerRefused`, whatever its status, so a caller matches the code and reads
    /// the category; the peer's own CouchDB error and reason travel with it, and a server relaying it answers
    /// with them.
    @Test func aPeerRefusalMatchesOneCodeAndKeepsThePeersErrorAndReason() {
        let refusal = CloudantError.peerRefused(url: Self.url, status: 412, error: "file_exists", reason: "The database could not be created.")
        #expect(refusal.code == .peerRefused && refusal.code == CloudantError.Code.peerRefused(status: 500))
        #expect(refusal.context.peerError == "file_exists" && refusal.context.peerReason == "The database could not be created.")
        let body = CouchErrorBody(refusal)
        #expect(body.status == 412 && body.error == "file_exists" && body.reason == "The database could not be created.")
        #expect(String(describing: refusal).contains("url=http://127.0.0.1:5984/db") && String(describing: refusal).contains("status=412"))
    }

    static let url = URL(string: "http://127.0.0.1:5984/db")!

    /// A 127.0.0.1 port nothing listens on.
    static func unusedPort() throws -> Int { try LoopbackSocket.unusedPort() }
}

/// A peer whose `info()` always fails with one error, counting the attempts.
private final class FailingPeer: ReplicationPeer {
    let failure: CloudantError
    let infoCalls = Mutex(0)

    init(_ failure: CloudantError) { self.failure = failure }

    func identity() async throws -> String { "failing" }
    func info() async throws -> PeerInfo {
        infoCalls.withLock { $0 += 1 }
        throw failure
    }
    func localDocument(id: String) async throws -> JSONObject? { nil }
    func putLocalDocument(id: String, body: JSONObject) async throws {}
    func changes(_ request: ChangesRequest) async throws -> ChangesPage { ChangesPage(changes: [], lastSeq: 0, pending: 0) }
    func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] { [:] }
    func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] { [] }
    func write(_ documents: [JSONObject]) async throws -> [WriteFailure] { [] }
    func ensureFullCommit() async throws {}
}

/// A local peer whose fetched document `spoiled` carries a member CouchDB refuses (`_bogus`).
private func tamperingPeer(_ base: LocalPeer, spoiling spoiled: String) -> ForwardingPeer {
    ForwardingPeer(base) { base, requests in
        try await base.fetch(requests).map { fetched in
            guard case .document(var document) = fetched, document["_id"]?.stringValue == spoiled else { return fetched }
            document["_bogus"] = true
            return .document(document)
        }
    }
}
