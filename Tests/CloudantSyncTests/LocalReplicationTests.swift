import CloudantCore
import CloudantStore
import CloudantSync
import Foundation
import Testing

/// Two real stores in one process, replicated without HTTP.
@Suite("Local-to-local replication")
struct LocalReplicationTests {
    final class Stores: @unchecked Sendable {
        // Immutable after init; the folder is removed in deinit.
        let folder: URL
        let a: DocumentStore
        let b: DocumentStore

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-sync-\(UUID().uuidString)")
            a = try DocumentStore.open(name: "a", in: StoreDirectory(path: folder.path))
            b = try DocumentStore.open(name: "b", in: StoreDirectory(path: folder.path))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    static func replicate(_ from: DocumentStore, _ to: DocumentStore, _ options: ReplicationOptions = ReplicationOptions()) async throws -> ReplicationStats {
        try await Replicator(source: LocalPeer(from), target: LocalPeer(to), options: options).run()
    }

    /// Everything two stores must agree on after syncing: ids, winners, deletion and conflicts.
    static func snapshot(_ store: DocumentStore) async throws -> [String] {
        let rows = try await store.changes(ChangesOptions(style: .allDocs)).results
        return rows.map { "\($0.id) \($0.changes.joined(separator: ",")) \($0.deleted)" }.sorted()
    }

    @Test func pushCopiesDocumentsHistoriesDeletionsAndAttachmentsButNotLocalDocuments() async throws {
        let stores = try Stores()
        let first = try await stores.a.put(["_id": "walk", "minutes": 20])
        try await stores.a.put(["_id": "walk", "_rev": .string(first.rev), "minutes": 25])
        let gone = try await stores.a.put(["_id": "gone"])
        try await stores.a.delete(id: "gone", rev: gone.rev)
        try await stores.a.put([
            "_id": "photo", "_attachments": ["x.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array("hello".utf8)))]],
        ])
        try await stores.a.putLocal(id: "_local/secret", body: ["x": 1])
        try await stores.a.put(["_id": "_design/q", "language": "query"])

        let stats = try await Self.replicate(stores.a, stores.b)
        #expect(stats.docsWritten == 4)
        #expect(try await Self.snapshot(stores.b) == (try await Self.snapshot(stores.a)))
        #expect(try await stores.b.document(id: "walk", options: ReadOptions(revs: true))["_revisions"]?["ids"]?.arrayValue?.count == 2)
        let attachment = try await stores.b.attachment(documentID: "photo", name: "x.txt")
        #expect(try attachment.data() == Array("hello".utf8))
        await #expect(throws: CloudantError.self) { try await stores.b.localDocument(id: "_local/secret") }

        // Nothing new: nothing moves.
        let again = try await Self.replicate(stores.a, stores.b)
        #expect(again.docsWritten == 0 && again.changesRead == 0)
    }

    @Test func aSecondRunResumesFromTheCheckpointNotFromZero() async throws {
        let stores = try Stores()
        _ = try await stores.a.bulkDocs((0..<120).map { ["_id": .string(String(format: "d%03d", $0))] })
        let first = try await Self.replicate(stores.a, stores.b, ReplicationOptions(batchSize: 50))
        #expect(first.docsWritten == 120)
        _ = try await stores.a.bulkDocs((120..<150).map { ["_id": .string(String(format: "d%03d", $0))] })
        let second = try await Self.replicate(stores.a, stores.b, ReplicationOptions(batchSize: 50))
        #expect(second.changesRead == 30 && second.missingChecked == 30 && second.docsWritten == 30)
        // Both sides carry the same checkpoint document, in CouchDB's shape.
        let logs = try await (stores.a.localDocument(id: "_local/" + replicationID(stores)), stores.b.localDocument(id: "_local/" + replicationID(stores)))
        #expect(logs.0["session_id"] == logs.1["session_id"])
        #expect(logs.1["history"]?.arrayValue?.count == 2)
        // The run's own statistics are its own; its checkpoint counts on from the history it resumed, as
        // CouchDB's replicator starts a job's statistics from the latest entry of the matched history.
        let latest = try #require(logs.1["history"]?.arrayValue?.first)
        #expect(latest["docs_written"] == 150 && latest["missing_checked"] == 150 && latest["docs_read"] == 150)
        let earlier = try #require(logs.1["history"]?.arrayValue?.last)
        #expect(earlier["docs_written"] == 120)
    }

    func replicationID(_ stores: Stores) async throws -> String {
        var machine = ReplicationStateMachine(.init(sessionID: "x", clock: { "" }))
        _ = machine.event(.start)
        _ = machine.event(.peersRead(sourceIdentity: try await LocalPeer(stores.a).identity(), targetIdentity: try await LocalPeer(stores.b).identity()))
        return machine.replicationID ?? ""
    }

    @Test func syncBothWaysConvergesConflictsIncluded() async throws {
        let stores = try Stores()
        let base = try await stores.a.put(["_id": "note", "text": "base"])
        _ = try await Self.replicate(stores.a, stores.b)
        // Concurrent edits on both sides.
        try await stores.a.put(["_id": "note", "_rev": .string(base.rev), "text": "from a"])
        try await stores.b.put(["_id": "note", "_rev": .string(base.rev), "text": "from b"])
        try await stores.b.put(["_id": "only-b"])
        async let push = Self.replicate(stores.a, stores.b)
        async let pull = Self.replicate(stores.b, stores.a)
        _ = try await (push, pull)
        #expect(try await Self.snapshot(stores.a) == (try await Self.snapshot(stores.b)))
        let winnerA = try await stores.a.document(id: "note", options: ReadOptions(conflicts: true))
        let winnerB = try await stores.b.document(id: "note", options: ReadOptions(conflicts: true))
        #expect(winnerA == winnerB)
        #expect(winnerA["_conflicts"]?.arrayValue?.count == 1)
    }

    @Test func filtersLimitWhatReplicates() async throws {
        let stores = try Stores()
        _ = try await stores.a.bulkDocs([["_id": "a", "kind": "x"], ["_id": "b", "kind": "y"], ["_id": "c", "kind": "x"]])
        _ = try await Self.replicate(stores.a, stores.b, ReplicationOptions(filter: .documentIDs(["b"])))
        #expect(try await stores.b.info().documentCount == 1)
        _ = try await Self.replicate(stores.a, stores.b, ReplicationOptions(filter: .selector(MangoSelector(["kind": "x"]))))
        #expect(try await stores.b.info().documentCount == 3)
        let third = try Stores()
        _ = try await Self.replicate(stores.a, third.a, ReplicationOptions(filter: .closure(name: "not-c") { $0["_id"] != "c" }))
        #expect(try await third.a.info().documentCount == 2)
    }

    @Test func continuousReplicationCarriesNewWritesUntilCancelled() async throws {
        let stores = try Stores()
        let replicator = Replicator(
            source: LocalPeer(stores.a), target: LocalPeer(stores.b),
            options: ReplicationOptions(continuous: true, longpoll: .milliseconds(200)))
        let running = Task { try await replicator.run() }
        try await stores.a.put(["_id": "live-1"])
        try await stores.a.put(["_id": "live-2"])
        var arrived = false
        for _ in 0..<100 where !arrived {
            try await Task.sleep(for: .milliseconds(50))
            arrived = try await stores.b.info().documentCount == 2
        }
        #expect(arrived)
        replicator.cancel()
        let error = await #expect(throws: CloudantError.self) { try await running.value }
        guard let error, error.code == .cancelled else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        #expect(error.context.url == nil)  // two local stores: no request was cut short
    }

    @Test func progressIsReportedAsASequenceAndToADelegate() async throws {
        final class Recorder: ReplicatorDelegate, @unchecked Sendable {
            // `lock` protects `states`.
            let lock = NSLock()
            var states: [ReplicationProgress.State] = []
            func replicator(_ replicator: Replicator, didReport progress: ReplicationProgress) {
                lock.withLock { states.append(progress.state) }
            }
        }
        let stores = try Stores()
        _ = try await stores.a.bulkDocs((0..<10).map { ["_id": .string("d\($0)")] })
        let recorder = Recorder()
        let replicator = Replicator(
            source: LocalPeer(stores.a), target: LocalPeer(stores.b), options: ReplicationOptions(batchSize: 4), delegate: recorder)
        let collected = Task { await replicator.progress.reduce(into: [ReplicationProgress]()) { $0.append($1) } }
        _ = try await replicator.run()
        let steps = await collected.value
        #expect(steps.last?.state == .complete && steps.last?.documentsProcessed == 10)
        #expect(recorder.lock.withLock { recorder.states.last } == .complete)
    }
}

/// Revisions are CouchDB's deterministic ones: two replicas that received the same writes hold the same
/// revisions, so replicating between them finds nothing to send and creates no conflict.
@Suite("Identical writes on two replicas")
struct IdenticalWritesReplicationTests {
    @Test func replicatingBetweenStoresWithTheSameWritesCreatesNoConflict() async throws {
        let stores = try LocalReplicationTests.Stores()
        for store in [stores.a, stores.b] {
            let first = try await store.put(["_id": "walk", "minutes": 20, "tags": ["am", "park"]])
            try await store.put(["_id": "walk", "_rev": .string(first.rev), "minutes": 25, "pace": 5.5])
            let gone = try await store.put(["_id": "gone", "v": 1])
            try await store.delete(id: "gone", rev: gone.rev)
            try await store.put([
                "_id": "photo", "_attachments": ["x.bin": ["content_type": "application/octet-stream", "data": .string(Base64.encode([1, 2, 3]))]],
            ])
        }
        #expect(try await LocalReplicationTests.snapshot(stores.a) == (try await LocalReplicationTests.snapshot(stores.b)))
        let push = try await LocalReplicationTests.replicate(stores.a, stores.b)
        let pull = try await LocalReplicationTests.replicate(stores.b, stores.a)
        #expect(push.docsWritten == 0 && pull.docsWritten == 0)
        for store in [stores.a, stores.b] {
            for id in ["walk", "photo"] {
                #expect(try await store.document(id: id, options: ReadOptions(conflicts: true))["_conflicts"] == nil)
            }
        }
    }
}
