import CloudantCore
import CloudantStore
import CloudantSync
import Foundation
import Testing

/// Repositories and the offline queue's replay hold a remote's answers to the same rules as a replication: a
/// hostile or broken server gets a named error, never a wrong entity, an empty success or credentials.
@Suite("Repositories and queue replay against hostile remotes")
struct HostileRemoteTests {
    static let options = StoreOptions(acceptsUnregisteredEntities: true)

    static func repository(_ server: HostileServer, path: String = "/db") throws -> RemoteRepository<Note> {
        let remote = try RemoteDatabase(
            url: URL(string: server.url.replacingOccurrences(of: "http://", with: "http://spy:secret@") + path)!)
        return RemoteRepository<Note>(database: remote, options: Self.options)
    }

    static func note(_ id: String, text: String = "hello", kind: String = "Note") -> JSONObject {
        ["_id": .string(id), "_rev": "1-0123456789abcdef0123456789abcdef", "text": .string(text), "id": .string(id), "entityType": .string(kind)]
    }

    @Test func aLookupAnsweredWithAnotherDocumentIsAnErrorNotThatDocument() async throws {
        let server = try HostileServer { _ in .json(200, .object(Self.note("someone-else"))) }
        defer { server.stop() }
        let error = await #expect(throws: CloudantError.self) { try await Self.repository(server).findOne(id: "mine") }
        #expect(error?.code == .peerViolation && error?.category == .invalidInput && error?.allowsFallback == false)
        #expect(error?.context.documentID == "mine" && error?.repositorySource == .remote)
        guard case .unrequestedDocument(let id, _)? = error?.peerViolation, let url = error?.context.url else {
            Issue.record("expected an unrequested document, got \(String(describing: error))")
            return
        }
        #expect(id == "someone-else" && url.user == nil)
    }

    @Test func aFindAnsweredWithAnHTMLPageOrWithoutDocsIsAnErrorNotAnEmptyResult() async throws {
        let html = try HostileServer { _ in .raw(200, headers: [("Content-Type", "text/html")], body: Data("<html>proxy</html>".utf8)) }
        defer { html.stop() }
        let page = await #expect(throws: CloudantError.self) { try await Self.repository(html).findAll() }
        #expect(page?.code == .peerViolation && page?.isRetryable == true && page?.allowsFallback == true)
        let empty = try HostileServer { _ in .json(200, ["bookmark": "x"]) }
        defer { empty.stop() }
        let shapeless = await #expect(throws: CloudantError.self) { try await Self.repository(empty).findAll() }
        #expect(shapeless?.code == .peerViolation && shapeless?.category == .invalidInput && shapeless?.allowsFallback == false)
    }

    @Test func aFindAnsweredWithDocumentsOfAnotherKindIsAnError() async throws {
        let server = try HostileServer { _ in .json(200, ["docs": [.object(Self.note("x", kind: "Secret"))]]) }
        defer { server.stop() }
        let error = await #expect(throws: CloudantError.self) { try await Self.repository(server).findAll() }
        #expect(error?.code == .peerViolation && error?.category == .invalidInput)
    }

    @Test func aRepositoryRedirectedToAnotherHostSendsNoCredentialsThere() async throws {
        let elsewhere = try HostileServer { _ in .json(200, ["docs": []]) }
        defer { elsewhere.stop() }
        let redirecting = try HostileServer { request in .redirect(307, location: elsewhere.url + request.path) }
        defer { redirecting.stop() }
        _ = try? await Self.repository(redirecting).findAll()
        #expect(redirecting.requests.first?.headers["authorization"] != nil)
        #expect(!elsewhere.requests.isEmpty && elsewhere.requests.allSatisfy { $0.headers["authorization"] == nil })
    }

    /// A store holding two queued writes for `server`'s `db`.
    static func queued(for server: HostileServer, in folder: URL) async throws -> (DocumentStore, OfflineWriteQueue) {
        let store = try DocumentStore.open(name: "device", in: StoreDirectory(path: folder.path), options: Self.options)
        let remote = try RemoteDatabase(url: URL(string: server.url.replacingOccurrences(of: "http://", with: "http://spy:secret@") + "/db")!)
        _ = try await store.bulkDocs([["_id": "a", "text": "one"], ["_id": "b", "text": "two"]], enqueueingFor: remote.identity)
        return (store, OfflineWriteQueue(store: store, remote: remote))
    }

    @Test func aReplayAnsweredWithAnHTMLPageKeepsEveryWriteQueuedAndSaysWhy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-hostile-queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try HostileServer { _ in .raw(200, headers: [("Content-Type", "text/html")], body: Data("<html>login</html>".utf8)) }
        defer { server.stop() }
        let (store, queue) = try await Self.queued(for: server, in: folder)
        let error = await #expect(throws: CloudantError.self) { try await queue.replay() }
        #expect(error?.code == .peerViolation && error?.isRetryable == true && error?.repositorySource == .remote)
        let pending = try await queue.pending()
        #expect(pending.map(\.documentID) == ["a", "b"])
        #expect(pending.allSatisfy { $0.lastError?.contains("text/html") == true })
        try store.close()
    }

    @Test func aReplayRedirectedToAnotherHostSendsNoCredentialsThere() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-hostile-queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let elsewhere = try HostileServer { _ in .json(201, []) }
        defer { elsewhere.stop() }
        let redirecting = try HostileServer { request in .redirect(307, location: elsewhere.url + request.path) }
        defer { redirecting.stop() }
        let (store, queue) = try await Self.queued(for: redirecting, in: folder)
        _ = try? await queue.replay()
        #expect(redirecting.requests.first?.headers["authorization"] != nil)
        #expect(!elsewhere.requests.isEmpty && elsewhere.requests.allSatisfy { $0.headers["authorization"] == nil })
        try store.close()
    }

    @Test func aReplayWhoseAnswerNeverEndsStopsAtTheLimitAndKeepsTheWrites() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-hostile-queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try HostileServer { _ in .endless(prefix: Data("[".utf8), filler: Data(String(repeating: "{},", count: 1_000).utf8)) }
        defer { server.stop() }
        let store = try DocumentStore.open(name: "device", in: StoreDirectory(path: folder.path), options: Self.options)
        let remote = try RemoteDatabase(url: URL(string: server.url + "/db")!, limits: PeerLimits(maximumBodySize: 1 << 20))
        _ = try await store.bulkDocs([["_id": "a"]], enqueueingFor: remote.identity)
        let queue = OfflineWriteQueue(store: store, remote: remote)
        let error = await #expect(throws: CloudantError.self) { try await queue.replay() }
        guard case .bodyTooLarge(let limit)? = error?.peerViolation else {
            Issue.record("expected the body limit, got \(String(describing: error))")
            return
        }
        #expect(limit == 1 << 20)
        #expect(try await queue.pending().map(\.documentID) == ["a"])
        try store.close()
    }
}
