import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// A continuous replication outlasts a peer that goes away (it waits, longer each time, and starts again from
/// its checkpoint), and stops cleanly at a batch boundary when asked.
@Suite("Continuous replication: endless polite retry and clean stops")
struct ContinuousReplicationTests {
    /// Every report a replicator makes, in order.
    final class Reports: Sendable {
        private let steps = Mutex<[ReplicationProgress]>([])
        var all: [ReplicationProgress] { steps.withLock { $0 } }
        func add(_ step: ReplicationProgress) { steps.withLock { $0.append(step) } }

        /// Follows `replicator`'s progress until it finishes.
        static func follow(_ replicator: Replicator) -> (Reports, Task<Void, Never>) {
            let reports = Reports()
            let task = Task { for await step in replicator.progress { reports.add(step) } }
            return (reports, task)
        }
    }

    /// Waits until `condition` holds (the shared test support's generous deadline only ends a broken run).
    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        try await waitUntil(what, checkingEvery: .milliseconds(20), condition)
    }

    @Test func aContinuousPullWaitsOutAStoppedServerAndResumesFromItsCheckpoint() async throws {
        let (server, remote, device) = try await RestartableServer.startedWithDevice()
        let admin = try HTTPPeer(url: remote.url, authentication: .basic(user: "admin", password: "s3cret"), headers: ["Connection": "close"])
        try await ServerWrites.put(["_id": "before"], to: remote)

        var options = ReplicationOptions(continuous: true, longpoll: .milliseconds(500))
        options.retry = RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(10), maximumDelay: .milliseconds(20))
        options.continuousRetry = ContinuousRetry(backoff: Backoff(initial: .milliseconds(40), maximum: .milliseconds(400), jitter: 0.2))
        let replicator = Replicator(source: admin, target: LocalPeer(device), options: options)
        let (reports, following) = Reports.follow(replicator)
        let running = Task { try await replicator.run() }
        try await Self.eventually("the first document arrives") { (try? await device.document(id: "before")) != nil }

        await server.stop()
        // Several failures in a row while it is away, each announced with the failure and a longer wait.
        try await Self.eventually("four waits") { reports.all.filter { $0.state == .retrying }.count >= 4 }
        try await server.start()
        try await ServerWrites.put(["_id": "after"], to: remote)
        try await Self.eventually("the document written after the restart arrives") { (try? await device.document(id: "after")) != nil }

        replicator.stop()
        let stats = try await running.value
        await following.value
        let retrying = reports.all.filter { $0.state == .retrying }
        #expect(retrying.allSatisfy { $0.error?.isRetryable == true && $0.retryDelay != nil })
        #expect(retrying.allSatisfy { $0.error?.code == .peerUnreachable }, "\(retrying.map { "\($0.error.map { "\($0)" } ?? "")" })")
        // Waits grow (with at most 20 % jitter each, a wait four failures in is longer than the first).
        let delays = retrying.compactMap(\.retryDelay)
        #expect((delays.last ?? .zero) > (delays.first ?? .zero))
        #expect(reports.all.last?.state == .stopped)
        #expect(stats.docsWritten == 2 && stats.failures.isEmpty)
        await server.finish()
    }

    @Test func aFailureThatCannotPassEndsAContinuousReplication() async throws {
        let server = RestartableServer()
        try await server.start()
        _ = try await server.remote("notes")
        let wrong = try HTTPPeer(url: URL(string: server.baseURL + "/notes")!, authentication: .basic(user: "admin", password: "nope"))
        var options = ReplicationOptions(continuous: true)
        options.continuousRetry = ContinuousRetry(backoff: Backoff(initial: .seconds(30)))
        let replicator = Replicator(source: wrong, target: LocalPeer(try server.deviceStore()), options: options)
        let error = await #expect(throws: CloudantError.self) { try await replicator.run() }
        #expect(error?.context.status == 401)
        await server.finish()
    }

    @Test func stopEndsAWaitForChangesAtOnceWithTheStatistics() async throws {
        let stores = try LocalReplicationTests.Stores()
        _ = try await stores.a.bulkDocs((0..<30).map { ["_id": .string("d\($0)")] })
        let replicator = Replicator(
            source: LocalPeer(stores.a), target: LocalPeer(stores.b),
            options: ReplicationOptions(batchSize: 7, continuous: true, longpoll: .seconds(600)))
        let (reports, following) = Reports.follow(replicator)
        let running = Task { try await replicator.run() }
        // Every document written, then the replication waits for changes. (Watching for its `.idle` report
        // instead would race the follower, which only hears reports made after it started listening.)
        try await Self.eventually("the thirty documents written") { try await stores.b.info().documentCount == 30 }
        replicator.stop()  // the longpoll would wait 10 minutes; the stop ends it now
        let stats = try await running.value
        await following.value
        #expect(stats.docsWritten == 30)
        #expect(reports.all.last?.state == .stopped)
        // It stopped after its checkpoint: a new run finds nothing to do.
        let again = try await Replicator(source: LocalPeer(stores.a), target: LocalPeer(stores.b)).run()
        #expect(again.changesRead == 0)
    }

    @Test func stopDuringABatchFinishesItAndWritesItsCheckpoint() async throws {
        let stores = try LocalReplicationTests.Stores()
        _ = try await stores.a.bulkDocs((0..<200).map { ["_id": .string(String(format: "d%03d", $0))] })
        let replicator = Replicator(source: LocalPeer(stores.a), target: LocalPeer(stores.b), options: ReplicationOptions(batchSize: 10))
        let running = Task { try await replicator.run() }
        for await step in replicator.progress where step.stats.docsWritten >= 20 {
            replicator.stop()
            break
        }
        let stats = try await running.value
        // Whole batches only, and everything written is checkpointed: the next run reads only the rest.
        #expect(stats.docsWritten % 10 == 0 && stats.docsWritten < 200)
        let rest = try await Replicator(source: LocalPeer(stores.a), target: LocalPeer(stores.b), options: ReplicationOptions(batchSize: 10)).run()
        #expect(rest.changesRead == 200 - stats.changesRead)
        #expect(try await stores.b.info().documentCount == 200)
    }

    @Test func aStopAskedForBeforeTheRunStartsEndsItAtOnce() async throws {
        let stores = try LocalReplicationTests.Stores()
        _ = try await stores.a.bulkDocs((0..<5).map { ["_id": .string("d\($0)")] })
        let replicator = Replicator(source: LocalPeer(stores.a), target: LocalPeer(stores.b))
        replicator.stop()
        let stats = try await replicator.run()
        #expect(stats.docsWritten == 0)
    }
}

/// Writes to a server's database through its HTTP API, as another client would.
enum ServerWrites {
    static func put(_ document: JSONObject, to remote: RemoteDatabase) async throws {
        let failures = try await remote.peer.write([document.merging(["_rev": .string("1-" + String(repeating: "a", count: 32))])])
        #expect(failures.isEmpty)
    }
}

extension JSONObject {
    fileprivate func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other.members { merged[key] = value }
        return merged
    }
}
