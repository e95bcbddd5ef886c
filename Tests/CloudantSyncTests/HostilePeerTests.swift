import CloudantCore
import CloudantStore
import CloudantSync
import CloudantSyncNIO
import CloudantTestSupport
import Foundation
import Testing

/// A broken or hostile source must not crash the replicator, grow its memory without bound, hang it, or get bad
/// data into the store: each attack of a small hostile HTTP server on 127.0.0.1, over both transports, ends
/// with the store exact (and the bad document named) or the run failed with a named reason.
@Suite("Hostile and broken peers")
struct HostilePeerTests {
    typealias Kind = HTTPTransportTests.Kind

    /// The revision `HostileServer.document` writes by default.
    static let revision = "1-0123456789abcdef0123456789abcdef"

    /// A pull from `server`'s `db` into a fresh store, with `limits` and one attempt per request.
    static func pull(
        from server: HostileServer, _ kind: Kind, limits: PeerLimits = PeerLimits(), filter: ReplicationFilter = .none,
        credentials: String = "spy:secret"
    ) async throws -> (Result<ReplicationStats, CloudantError>, DocumentStore, LocalReplicationTests.Stores) {
        let stores = try LocalReplicationTests.Stores()
        let url = URL(string: server.url.replacingOccurrences(of: "http://", with: "http://\(credentials)@") + "/db")!
        // The peer's silence timeout is generous: what these tests watch is the limits' verdicts, and a loaded
        // machine once kept an honest `_bulk_get` answer from this server past the default minute.
        let source = try HTTPPeer(url: url, timeout: TestDeadline.generous, limits: limits, transport: kind.make())
        let options = ReplicationOptions(filter: filter, retry: .never)
        do {
            return (.success(try await Replicator(source: source, target: LocalPeer(stores.a), options: options).run()), stores.a, stores)
        } catch let error as CloudantError {
            return (.failure(error), stores.a, stores)
        }
    }

    /// The violation a failed run reports, and that its URL names the peer without credentials.
    static func violation(_ result: Result<ReplicationStats, CloudantError>, at path: String) -> PeerViolation? {
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return nil
        }
        guard let violation = error.peerViolation, let url = error.context.url else {
            Issue.record("expected a peer violation, got \(error)")
            return nil
        }
        #expect(url.path.hasSuffix(path), "\(url)")
        #expect(url.user == nil && url.password == nil && !"\(error)".contains("secret"))
        return violation
    }

    /// Nothing was written and no checkpoint recorded.
    static func untouched(_ store: DocumentStore) async throws {
        #expect(try await store.info().documentCount == 0)
        #expect(try await store.changes(ChangesOptions()).results.isEmpty)
    }

    // MARK: Memory

    @Test(arguments: Kind.allCases)
    func anEndlessChangesFeedEndsAtTheBodyLimitInsteadOfExhaustingMemory(kind: Kind) async throws {
        let server = try HostileServer.source { request in
            guard request.path == "/db/_changes" else { return nil }
            return .endless(prefix: Data(#"{"results":["#.utf8), filler: Data(String(repeating: #"{"seq":"1","id":"x","changes":[{"rev":"1-a"}]},"#, count: 200).utf8), interval: .milliseconds(1))
        }
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind, limits: PeerLimits(maximumBodySize: 256 << 10))
        #expect(Self.violation(result, at: "/db/_changes") == .bodyTooLarge(limit: 256 << 10))
        // Asked again with ever smaller pages, down to one change, before giving up.
        let limits = server.requests.filter { $0.path == "/db/_changes" }.compactMap { Int($0.query["limit"] ?? "") }
        #expect(limits.first == 1_000 && limits.last == 1)
        try await Self.untouched(store)
    }

    @Test(arguments: Kind.allCases)
    func aValidChangesPageLargerThanTheLimitIsReadInSmallerPages(kind: Kind) async throws {
        // 600 changes whose rows are about 1 KB each: the first page (1,000 rows asked) is over 256 KiB.
        let ids = (0..<600).map { String(format: "doc-%04d-", $0) + String(repeating: "p", count: 900) }
        let server = try HostileServer.source { request in
            switch request.path {
            case "/db/_changes":
                let since = Int(request.query["since"]?.split(separator: "-").first ?? "0") ?? 0
                let limit = Int(request.query["limit"] ?? "") ?? 1_000
                let page = ids.enumerated().dropFirst(since).prefix(limit)
                return .json(200, [
                    "results": .array(page.map { ["seq": .string("\($0.offset + 1)-x"), "id": .string($0.element), "changes": [["rev": "1-a"]]] }),
                    "last_seq": .string("\((page.last?.offset ?? since - 1) + 1)-x"), "pending": .number(JSONNumber(ids.count - since - page.count)),
                ])
            case "/db/_bulk_get":
                let asked = request.json?["docs"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                return .json(200, HostileServer.bulkGet(asked.map { HostileServer.document($0, hash: "a") }))
            default:
                return nil
            }
        }
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind, limits: PeerLimits(maximumBodySize: 256 << 10))
        let stats = try result.get()
        #expect(stats.docsWritten == 600 && stats.failures.isEmpty)
        #expect(try await store.info().documentCount == 600)
    }

    // MARK: Answers that are not what was asked

    @Test(arguments: Kind.allCases)
    func aProxysHTMLPageInsteadOfBulkGetIsAnErrorNotAnEmptySuccess(kind: Kind) async throws {
        let server = try HostileServer.source { request in
            switch request.path {
            case "/db/_changes": .json(200, HostileServer.changes([("a", ["1-0123456789abcdef0123456789abcdef"])]))
            case "/db/_bulk_get": .raw(200, headers: [("Content-Type", "text/html")], body: Data("<html><body>Bad gateway</body></html>".utf8))
            default: nil
            }
        }
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind)
        #expect(Self.violation(result, at: "/db/_bulk_get") == .unexpectedMediaType("text/html"))
        if case .failure(let error) = result { #expect(error.isRetryable && error.category == .unavailable) }
        try await Self.untouched(store)
    }

    /// A `_bulk_get` answer that does not match what was asked, for the changes the source lists.
    struct BulkGetMismatch: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var changes: [String]
        var answered: [JSONObject]
        var violation: PeerViolation

        static let all: [BulkGetMismatch] = [
            .init(
                testDescription: "an answer leaving out a requested revision", changes: ["a", "b"],
                answered: [HostileServer.document("a")], violation: .missingRevision(id: "b", rev: revision)),
            .init(
                testDescription: "an answer holding a document nobody asked for", changes: ["a"],
                answered: [HostileServer.document("a"), HostileServer.document("_design/evil", ["language": "query"])],
                violation: .unrequestedDocument(id: "_design/evil", rev: revision)),
        ]
    }

    @Test("A _bulk_get answer that is not what was asked is an error, and nothing is written",
          arguments: BulkGetMismatch.all, Kind.allCases)
    func aBulkGetAnswerThatIsNotWhatWasAskedIsAnError(mismatch: BulkGetMismatch, kind: Kind) async throws {
        let server = try HostileServer.source(changes: mismatch.changes.map { ($0, [Self.revision]) }, bulkGet: mismatch.answered)
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind)
        #expect(Self.violation(result, at: "/db/_bulk_get") == mismatch.violation)
        try await Self.untouched(store)
    }

    @Test(arguments: Kind.allCases)
    func aChangesFeedIgnoringDocIDsCannotSlipADesignDocumentIn(kind: Kind) async throws {
        let server = try HostileServer.source(
            changes: [("a", [Self.revision]), ("_design/evil", [Self.revision])], bulkGet: [HostileServer.document("a")])
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind, filter: .documentIDs(["a"]))
        let stats = try result.get()
        #expect(stats.docsWritten == 1)
        #expect(try await store.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["a"])
        // The design document was never asked for.
        #expect(!server.requests.contains { $0.path == "/db/_bulk_get" && $0.body.range(of: Data("evil".utf8)) != nil })
    }

    @Test(arguments: Kind.allCases)
    func aChangesAnswerWithoutResultsIsAnErrorNotAnEmptyFeed(kind: Kind) async throws {
        let server = try HostileServer.source { request in
            request.path == "/db/_changes" ? .json(200, ["last_seq": "99-x"]) : nil
        }
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind)
        #expect(Self.violation(result, at: "/db/_changes") == .unexpectedShape("a _changes answer without a results array"))
        try await Self.untouched(store)
    }

    // MARK: One bad document among good ones

    @Test(arguments: Kind.allCases)
    func oneBadDocumentIsNamedAndSkippedWhileTheOthersAreWritten(kind: Kind) async throws {
        let hash = "0123456789abcdef0123456789abcdef"
        let badBase64 = HostileServer.document("bad-base64", ["_attachments": ["x": ["content_type": "text/plain", "data": "!!!not base64"]]])
        let follows = HostileServer.document("follows", ["_attachments": ["x": ["content_type": "text/plain", "follows": true, "length": 5]]])
        var huge = HostileServer.document("huge-generation")
        huge["_rev"] = .string("9007199254740993-" + hash)
        huge["_revisions"] = ["start": 9_007_199_254_740_993, "ids": [.string(hash)]]
        let spoofed = HostileServer.document("spoofed", ["_attachments": ["x": ["content_type": "text/plain", "stub": true, "follows_file": "/etc/passwd"]]])
        let short = HostileServer.document("short", ["_attachments": ["x": ["content_type": "text/plain", "data": "aGVsbG8=", "length": 50]]])
        let deep = HostileServer.document("deep", ["nested": (0..<600).reduce(JSONValue.null) { inner, _ in ["n": inner] }])
        let good = HostileServer.document("good", ["ok": true])
        let served = [badBase64, follows, huge, spoofed, short, deep, good]
        let server = try HostileServer.source { request in
            switch request.path {
            case "/db/_changes":
                return .json(200, HostileServer.changes(served.map { ($0["_id"]?.stringValue ?? "", [$0["_rev"]?.stringValue ?? ""]) }))
            case "/db/_bulk_get":
                let asked = Set(request.json?["docs"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
                return .json(200, HostileServer.bulkGet(served.filter { asked.contains($0["_id"]?.stringValue ?? "") }))
            default:
                return nil
            }
        }
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind)
        let stats = try result.get()
        #expect(stats.docsWritten == 1)
        #expect(Set(stats.failures.compactMap(\.id)) == ["bad-base64", "follows", "huge-generation", "spoofed", "short", "deep"])
        #expect(stats.failures.allSatisfy { !$0.reason.isEmpty })
        #expect(try await store.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["good"])
    }

    @Test(arguments: Kind.allCases)
    func aRowWithTwentyThousandLeavesIsNamedAndABoundedOneIsReplicatedQuickly(kind: Kind) async throws {
        let leaves = (0..<20_000).map { "1-" + String(format: "%032x", $0) }
        let server = try HostileServer.source { request in
            switch request.path {
            case "/db/_changes":
                return .json(200, HostileServer.changes([("wide", leaves), ("fine", Array(leaves.prefix(300)))]))
            case "/db/_bulk_get":
                let asked = request.json?["docs"]?.arrayValue?.compactMap { entry -> JSONObject? in
                    guard let id = entry["id"]?.stringValue, let rev = entry["rev"]?.stringValue else { return nil }
                    return HostileServer.document(id, hash: String(rev.dropFirst(2)))
                }
                return .json(200, HostileServer.bulkGet(asked ?? []))
            default:
                return nil
            }
        }
        defer { server.stop() }
        let (result, store, _) = try await Self.pull(from: server, kind, limits: PeerLimits(maximumLeaves: 5_000))
        let stats = try result.get()
        #expect(stats.failures.map(\.id) == ["wide"])
        #expect(stats.failures.first?.reason.contains("20000 leaves") == true)
        #expect(stats.docsWritten == 300)
        #expect(try await store.document(id: "fine", options: ReadOptions(conflicts: true))["_conflicts"]?.arrayValue?.count == 299)
    }

    // MARK: Time

    @Test(arguments: Kind.allCases)
    func aBodyTrickledOneByteAtATimeEndsAsTooSlow(kind: Kind) async throws {
        let server = try HostileServer.source { request in
            request.path == "/db/_changes" ? .trickle(body: Data(String(repeating: " ", count: 10_000).utf8), interval: .milliseconds(200)) : nil
        }
        defer { server.stop() }
        // 15 bytes in 3 s where 300 are needed; an honest answer here is complete long before a window ends.
        let limits = PeerLimits(minimumTransferRate: 100, rateWindow: .seconds(3))
        let (result, store, _) = try await Self.pull(from: server, kind, limits: limits)
        #expect(Self.violation(result, at: "/db/_changes") == .tooSlow(bytes: 300, seconds: 3))
        try await Self.untouched(store)
    }

    @Test(arguments: Kind.allCases)
    func anAnswerThatKeepsComingPastItsDeadlineEnds(kind: Kind) async throws {
        // Fast enough for any pace, but never finished.
        let server = try HostileServer.source { request in
            request.path == "/db/_changes"
                ? .endless(prefix: Data(#"{"results":["#.utf8), filler: Data(String(repeating: " ", count: 100).utf8), interval: .milliseconds(20)) : nil
        }
        defer { server.stop() }
        // The deadline must end the endless `_changes`, not an honest request before it; a machine loaded enough
        // to keep an honest request past it gets the run again with a longer one: slowness costs time, never
        // the verdict.
        var seconds = 10
        while true {
            let limits = PeerLimits(maximumBodySize: 1 << 40, minimumTransferRate: 0, requestDeadline: .seconds(seconds))
            let (result, store, _) = try await Self.pull(from: server, kind, limits: limits)
            let slow: Bool
            switch result {
            // An honest request ran past the deadline.
            case .failure(let error) where error.code == .peerViolation && error.context.url?.path.hasSuffix("/db/_changes") == false:
                slow = true
            // The endless answer had not even begun when the deadline came: the machine, not the peer.
            case .failure(let error) where error.code == .peerTimedOut: slow = true
            default: slow = false
            }
            if slow, seconds < 640 {
                seconds *= 4
                continue
            }
            #expect(Self.violation(result, at: "/db/_changes") == .deadlineExceeded(seconds: seconds))
            try await Self.untouched(store)
            return
        }
    }

    // MARK: Attachments moved on their own

    @Test(arguments: Kind.allCases)
    func anAttachmentLongerOrShorterThanItsStubIsNamedAsItsDocumentsFailure(kind: Kind) async throws {
        let documents = ["long", "short", "exact"].map { id in
            HostileServer.document(id, ["_attachments": ["x.bin": ["content_type": "application/octet-stream", "stub": true, "length": 4096, "revpos": 1]]])
        }
        let server = try HostileServer.source { request in
            switch request.path {
            case "/db/_changes": return .json(200, HostileServer.changes(documents.map { ($0["_id"]?.stringValue ?? "", [$0["_rev"]?.stringValue ?? ""]) }))
            case "/db/_bulk_get":
                let asked = Set(request.json?["docs"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
                return .json(200, HostileServer.bulkGet(documents.filter { asked.contains($0["_id"]?.stringValue ?? "") }))
            case "/db/long/x.bin": return .raw(200, headers: [("Content-Type", "application/octet-stream")], body: Data(count: 9_000))
            case "/db/short/x.bin": return .raw(200, headers: [("Content-Type", "application/octet-stream")], body: Data(count: 100))
            case "/db/exact/x.bin": return .raw(200, headers: [("Content-Type", "application/octet-stream")], body: Data(count: 4096))
            default: return nil
            }
        }
        defer { server.stop() }
        let stores = try LocalReplicationTests.Stores()
        let source = try HTTPPeer(url: URL(string: server.url + "/db")!, transport: kind.make())
        var options = ReplicationOptions(retry: .never)
        options.separateAttachmentSize = 1_024
        let stats = try await Replicator(source: source, target: LocalPeer(stores.a), options: options).run()
        #expect(Set(stats.failures.compactMap(\.id)) == ["long", "short"])
        #expect(stats.failures.allSatisfy { $0.reason.contains("x.bin") })
        #expect(try await stores.a.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["exact"])
    }

    // MARK: Credentials

    @Test(arguments: Kind.allCases)
    func aRedirectToAnotherHostNeverCarriesTheCredentials(kind: Kind) async throws {
        let elsewhere = try HostileServer { _ in .json(200, ["db_name": "db", "update_seq": "0", "instance_start_time": "0"]) }
        defer { elsewhere.stop() }
        let redirecting = try HostileServer { request in .redirect(307, location: elsewhere.url + request.path) }
        defer { redirecting.stop() }
        let url = URL(string: redirecting.url.replacingOccurrences(of: "http://", with: "http://spy:secret@") + "/db")!
        _ = try? await HTTPPeer(url: url, transport: kind.make()).info()
        #expect(redirecting.requests.first?.headers["authorization"] != nil)
        #expect(!elsewhere.requests.isEmpty, "the redirect was followed")
        #expect(elsewhere.requests.allSatisfy { $0.headers["authorization"] == nil && $0.headers["cookie"] == nil })

        // A session cookie stays home too.
        let sessions = try HostileServer { request in
            switch request.path {
            case "/_session": .raw(200, headers: [("Set-Cookie", "AuthSession=abc; Path=/"), ("Content-Type", "application/json")], body: Data(#"{"ok":true}"#.utf8))
            default: .redirect(307, location: elsewhere.url + request.path)
            }
        }
        defer { sessions.stop() }
        let withSession = try HTTPPeer(
            url: URL(string: sessions.url + "/db")!, authentication: .session(user: "spy", password: "secret"), transport: kind.make())
        _ = try? await withSession.info()
        #expect(sessions.requests.contains { $0.headers["cookie"] == "AuthSession=abc" })
        #expect(elsewhere.requests.allSatisfy { $0.headers["authorization"] == nil && $0.headers["cookie"] == nil })
    }

    @Test(arguments: Kind.allCases)
    func aRedirectWithinTheSameServerKeepsTheCredentials(kind: Kind) async throws {
        let server = try HostileServer { request in
            if request.path == "/old" { return .redirect(307, location: "/db") }
            return .json(200, ["db_name": "db", "update_seq": "0", "instance_start_time": "0"])
        }
        defer { server.stop() }
        let peer = try HTTPPeer(url: URL(string: server.url.replacingOccurrences(of: "http://", with: "http://me:pw@") + "/old")!, transport: kind.make())
        _ = try await peer.info()
        #expect(server.requests.count == 2 && server.requests.allSatisfy { $0.headers["authorization"] != nil })
    }
}
