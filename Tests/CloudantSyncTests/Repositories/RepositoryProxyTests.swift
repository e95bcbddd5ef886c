import CloudantCore
import CloudantOnly
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing

/// Repositories over the store and a live server on 127.0.0.1 that is stopped and restarted mid-test.
@Suite("Repositories with a remote that goes away")
struct RepositoryProxyTests {
    @Test func remoteFirstReadsFallBackToTheStoreAndSaySo() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .remoteFirst)

        let saved = try await notes.store([Note(id: "a", text: "walk"), Note(id: "b", text: "swim")])
        #expect(saved.origin == .remote && saved.pendingWrites.isEmpty)
        // Synchronized: the store holds the remote's revisions, not revisions of its own.
        #expect(saved.metadata[.local]?.revisions == saved.metadata[.remote]?.revisions)
        #expect(try await LocalRepository<Note>(store: store).findAll().value.map(\.revId) == saved.value.map(\.revId))

        let online = try await notes.findAll()
        #expect(online.origin == .remote && online.value.map(\.text) == ["walk", "swim"])

        await server.stop()
        let offline = try await notes.findAll()
        #expect(offline.origin == .localAfterRemoteFailed)
        #expect(offline.value.map(\.text) == ["walk", "swim"])
        #expect(offline.metadata[.remote]?.failure?.code == .peerUnreachable)
        let one = try await notes.findOne(id: "b")
        #expect(one.origin == .localAfterRemoteFailed && one.value?.text == "swim")

        try await server.start()
        #expect(try await notes.findAll().origin == .remote)
        await server.finish()
    }

    @Test func writesMadeWhileTheRemoteIsAwayAreQueuedDurablyAndReplayedInOrder() async throws {
        let server = RestartableServer()
        try await server.start()
        let remote = try await server.remote()
        var store = try server.deviceStore()
        var notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .remoteFirst)
        let kept = try await notes.storeOne(Note(id: "kept", text: "online"))

        await server.stop()
        let first = try await notes.storeOne(Note(id: "first", text: "one"))
        #expect(first.origin == .localAfterRemoteFailed)
        #expect(first.pendingWrites.map(\.documentID) == ["first"])
        #expect(first.metadata[.remote]?.failure?.code == .peerUnreachable)
        let edited = try await notes.updateOne(Note(id: "first", text: "one, edited", revId: first.value.revId))
        _ = try await notes.storeOne(Note(id: "second", text: "two"))
        _ = try await notes.removeOne(kept.value)
        await notes.queue.stop()

        // The queue is in the file: a store opened again (a process that restarted) still has it.
        try store.close()
        store = try server.deviceStore()
        notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .remoteFirst)
        let queued = try await notes.queue.pending()
        #expect(queued.map(\.documentID) == ["first", "first", "second", "kept"])
        #expect(queued.map(\.action) == [.store, .update, .store, .remove])
        #expect(queued.map(\.id) == queued.map(\.id).sorted())

        try await server.start()
        let report = try await notes.queue.replay()
        #expect(report.sent == 4 && report.skipped == 0 && report.refused.isEmpty && report.resolvedConflicts.isEmpty)
        #expect(try await notes.queue.pending().isEmpty)

        // The remote holds exactly the device's revisions, the delete included, in the order they were made.
        let direct = RemoteRepository<Note>(database: remote, options: store.options)
        #expect(try await direct.findOne(id: "first").value == edited.value)
        #expect(try await direct.findOne(id: "kept").value == nil)
        let changes = try await remote.peer.changes(ChangesRequest(since: 0, limit: 100, filter: .none))
        #expect(changes.changes.map(\.id) == ["first", "second", "kept"])
        #expect(changes.changes.last?.deleted == true)
        try store.close()
        await server.finish()
    }

    @Test func aWriteTheRemoteAlreadyAppliedIsNotAppliedTwice() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        // Written and queued, then delivered behind the queue's back: the server committed, the device
        // never heard (a connection that died after the commit).
        let (written, pending) = try await store.add([Note(id: "n", text: "once")], enqueueingFor: remote.identity)
        let only = ReplicationOptions(filter: .documentIDs(["n"]), useCheckpoints: false)
        try await Replicator(source: LocalPeer(store), target: remote.peer, options: only).run()
        let before = try await remote.peer.info().updateSeq

        let queue = OfflineWriteQueue(store: store, remote: remote)
        #expect(try await queue.pending() == pending)
        let report = try await queue.replay()
        #expect(report.sent == 1 && report.resolvedConflicts.isEmpty)
        // Nothing new on the server: same revision, no conflict, no new sequence.
        let doc = try #require(try await remote.client(document: "n"))
        #expect(doc["_rev"]?.stringValue == written[0].revId)
        #expect(doc["_conflicts"] == nil)
        #expect(try await remote.peer.info().updateSeq == before)
        await server.finish()
    }

    @Test(arguments: [ReplayConflictChoice.keepLocal, .keepRemote, .newestByField])
    func aConflictMadeWhileOfflineIsSettledByThePolicy(_ choice: ReplayConflictChoice) async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let queue = OfflineWriteQueue(store: store, remote: remote, conflictPolicy: choice.policy)
        let notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .remoteFirst, queue: queue)
        let base = try await notes.storeOne(Note(id: "n", text: "b base"))

        await server.stop()
        let device = try await notes.updateOne(Note(id: "n", text: "a device", revId: base.value.revId))
        #expect(device.origin == .localAfterRemoteFailed)
        await queue.stop()
        try await server.start()
        // Someone else edits the same revision on the server meanwhile.
        let elsewhere = RemoteRepository<Note>(database: remote, options: store.options)
        _ = try await elsewhere.updateOne(Note(id: "n", text: "c server", revId: base.value.revId))

        let report = try await queue.replay()
        #expect(report.sent == 1)
        #expect(report.resolvedConflicts.map(\.id) == ["n"])
        let expected = choice == .keepLocal ? "a device" : "c server"
        let there = try #require(try await remote.client(document: "n"))
        #expect(there["text"]?.stringValue == expected)
        #expect(there["_conflicts"] == nil)
        // Both sides converge on one winner, with no conflict left anywhere.
        let here = try await store.document(id: "n", options: ReadOptions(conflicts: true))
        #expect(here["_rev"] == there["_rev"] && here["_conflicts"] == nil)
        await server.finish()
    }

    @Test func localFirstWritesAreSentAtOnceAndReplayedInTheBackgroundWhenTheRemoteIsBack() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let queue = OfflineWriteQueue(
            store: store, remote: remote, backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)))
        let notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .offlineFirst, queue: queue)

        let online = try await notes.storeOne(Note(id: "a", text: "online"))
        #expect(online.origin == .local && online.pendingWrites.isEmpty)
        #expect(online.metadata[.remote]?.revisions == ["a": try #require(online.value.revId)])
        #expect(try await remote.client(document: "a")?["_rev"]?.stringValue == online.value.revId)

        await server.stop()
        let offline = try await notes.storeOne(Note(id: "b", text: "offline"))
        #expect(offline.origin == .local)
        #expect(offline.pendingWrites.map(\.documentID) == ["b"])
        #expect(offline.metadata[.remote]?.failure?.code == .peerUnreachable)
        #expect(await queue.isRetrying)

        try await server.start()
        let deadline = ContinuousClock.now + .seconds(60)
        while try await store.pendingWriteCount() > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await store.pendingWriteCount() == 0)
        #expect(try await remote.client(document: "b")?["_rev"]?.stringValue == offline.value.revId)
        await queue.stop()
        await server.finish()
    }

    @Test func aLookupTheStoreMissesIsAnsweredByTheRemoteAndKeptHere() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let elsewhere = RemoteRepository<Note>(database: remote, options: store.options)
        let there = try await elsewhere.storeOne(Note(id: "r", text: "from the server"))

        let notes = RepositoryProxy<Note>(store: store, remote: remote)
        let found = try await notes.findOne(id: "r")
        #expect(found.origin == .remoteAfterLocalFailed && found.value == there.value)
        // Synchronized: the next offline lookup has it, with the server's revision.
        await server.stop()
        let local = try await notes.findOne(id: "r")
        #expect(local.origin == .local && local.value?.revId == there.value.revId)
        let missing = try await notes.findOne(id: "nowhere")
        #expect(missing.value == nil && missing.origin == .local)
        await server.finish()
    }

    @Test func aStaleRevisionIsAConflictThatNeitherFallsBackNorQueues() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: .remoteFirst)
        let first = try await notes.storeOne(Note(id: "n", text: "one"))
        _ = try await notes.updateOne(Note(id: "n", text: "two", revId: first.value.revId))
        let error = await #expect(throws: CloudantError.self) {
            try await notes.updateOne(Note(id: "n", text: "stale", revId: first.value.revId))
        }
        #expect(error?.code == .peerRefused && error?.category == .conflict && error?.context.peerError == "conflict")
        #expect(error?.repositorySource == .remote && error?.context.documentID == "n" && error?.allowsFallback == false)
        #expect(try await store.pendingWriteCount() == 0)
        #expect(try await notes.findOne(id: "n").value?.text == "two")
        await server.finish()
    }

    @Test func aRemoteOnlyWriteFailsWhileTheRemoteIsAwayAndKeepsNothing() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let notes = RepositoryProxy<Note>(store: store, remote: remote, strategy: RepositoryStrategy(.remoteOnly))
        await server.stop()
        let error = await #expect(throws: CloudantError.self) { try await notes.storeOne(Note(id: "n", text: "lost?")) }
        #expect(error?.code == .peerUnreachable && error?.repositorySource == .remote && error?.isRetryable == true)
        #expect(try await store.pendingWriteCount() == 0)
        #expect(try await LocalRepository<Note>(store: store).findOne(id: "n").value == nil)
        await server.finish()
    }

    @Test func clearingTheQueueForgetsTheWritesButKeepsTheDocuments() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        _ = try await store.add([Note(id: "x", text: "kept here")], enqueueingFor: remote.identity)
        let queue = OfflineWriteQueue(store: store, remote: remote)
        #expect(try await queue.clear() == 1)
        #expect(try await queue.pending().isEmpty)
        #expect(try await store.get(Note.self, id: "x").text == "kept here")
        #expect(try await queue.replay().sent == 0)
        await server.finish()
    }

    @Test func callbacksDeliverTheAnswerOnTheirQueue() async throws {
        let (server, remote, store) = try await RestartableServer.startedWithDevice()
        let notes = RepositoryProxy<Note>(store: store, remote: remote)
        _ = try await notes.storeOne(Note(id: "c", text: "callback"))
        let queue = DispatchQueue(label: "repository-callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let (texts, onQueue) = await withCheckedContinuation { continuation in
            notes.find(.where("text", equals: "callback"), callbackQueue: queue) { result in
                continuation.resume(returning: ((try? result.get().value.map(\.text)) ?? [], DispatchQueue.getSpecific(key: key) == true))
            }
        }
        #expect(texts == ["callback"] && onQueue)
        await server.finish()
    }
}

/// The conflict policies the conflict test runs with (a `DocumentConflictPolicy` is not `Hashable`).
enum ReplayConflictChoice: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case keepLocal, keepRemote, newestByField

    var policy: DocumentConflictPolicy {
        switch self {
        case .keepLocal: .keepLocal
        case .keepRemote: .keepRemote
        // The texts sort "a device" < "c server": the highest wins, the server's.
        case .newestByField: .newestByField("text")
        }
    }

    var testDescription: String { rawValue }
}

extension RemoteDatabase {
    /// The document as the server holds it, with `_conflicts`; nil when missing.
    func client(document id: String) async throws -> JSONObject? {
        let port = try #require(url.port)
        let admin = TestClient(baseURL: "http://127.0.0.1:\(port)", user: (RestartableServer.admin.name, RestartableServer.admin.password))
        let answer = try await admin.get(url.path + "/\(id)?conflicts=true")
        guard answer.status == 200 else { return nil }
        return answer.json.objectValue
    }
}
