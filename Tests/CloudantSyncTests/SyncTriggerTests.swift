import CloudantCore
import CloudantStore
import CloudantSync
import Foundation
import Synchronization
import Testing

/// Automatic sync with real stores and real clocks (short intervals): after writes, on a schedule, on request,
/// with backoff while a live 127.0.0.1 server is away. Waits are for events, with generous timeouts: the suite
/// shares two slow cores with the rest of the tests.
@Suite("Sync triggers")
struct SyncTriggerTests {
    @Test("a burst of 1000 writes becomes one sync, after the quiet period, that carries them all")
    func aBurstOfWritesBecomesOneSync() async throws {
        let stores = try LocalReplicationTests.Stores()
        let sync = AutomaticSync(
            store: stores.a, remote: LocalPeer(stores.b),
            configuration: .init(quietPeriod: .seconds(1), syncsOnStart: false))
        let log = EventLog(sync)
        try await sync.start()
        for batch in 0..<50 {
            let documents: [JSONValue] = (0..<20).map { .object(["_id": .string("note-\(batch)-\($0)"), "n": .number(JSONNumber($0))]) }
            _ = try await stores.a.bulkDocs(documents)
        }
        let completed = try await log.waitForCompletions(1)
        #expect(completed[0].reason == .localWrites && completed[0].pushed.docsWritten == 1000)
        #expect(try await stores.b.info().documentCount == 1000)
        // Nothing is left to send, so no second sync comes once the quiet period has passed again.
        try await Task.sleep(for: .milliseconds(1200))
        #expect(log.started == [.localWrites])
        await sync.stop()
    }

    @Test("the schedule syncs again and again while nothing is written here, pulling the remote's changes")
    func theScheduleFires() async throws {
        let stores = try LocalReplicationTests.Stores()
        try await stores.b.put(["_id": "from-the-server"])
        let sync = AutomaticSync(
            store: stores.a, remote: LocalPeer(stores.b),
            configuration: .init(syncsAfterLocalWrites: false, interval: .milliseconds(200), syncsOnStart: false))
        let log = EventLog(sync)
        try await sync.start()
        let completed = try await log.waitForCompletions(2)
        #expect(completed.map(\.reason) == [.schedule, .schedule])
        #expect(completed[0].pulled.docsWritten == 1 && completed[1].pulled.docsWritten == 0)
        #expect(try await stores.a.document(id: "from-the-server")["_id"] == "from-the-server")
        await sync.stop()
    }

    @Test("an unreachable remote fails with growing retry delays, then the retry syncs once it is back")
    func anUnreachableRemoteBacksOffThenSyncs() async throws {
        let server = RestartableServer()
        try await server.start()
        let remote = try await server.remote()
        await server.stop()
        let device = try server.deviceStore()
        try await device.put(["_id": "written-offline"])
        var configuration = AutomaticSync.Configuration(
            backoff: Backoff(initial: .milliseconds(50), maximum: .seconds(1), multiplier: 2, jitter: 0.25))
        configuration.replication.retry = .never
        let sync = AutomaticSync(store: device, remote: remote.peer, configuration: configuration)
        let log = EventLog(sync)
        try await sync.start()
        let failures = try await log.waitForFailures(3)
        #expect(failures.allSatisfy { $0.error.isRetryable && $0.nextRetry != nil })
        #expect(failures.map(\.consecutiveFailures) == [1, 2, 3])
        #expect(failures.map(\.reason) == [.start, .retry, .retry])
        let delays = failures.compactMap(\.retryDelay)
        #expect(delays.count == 3 && delays[0] < delays[1] && delays[1] < delays[2])
        try await server.start()
        let completed = try await log.waitForCompletions(1)
        #expect(completed[0].reason == .retry && completed[0].pushed.docsWritten == 1)
        #expect(await sync.consecutiveFailures == 0)
        await sync.stop()
        await server.finish()
    }

    @Test("requests during a sync queue exactly one more, and two syncs never run at once")
    func requestsDuringASyncQueueOneMore() async throws {
        let stores = try LocalReplicationTests.Stores()
        let remote = SlowPeer(LocalPeer(stores.b), delay: .milliseconds(150))
        let sync = AutomaticSync(
            store: stores.a, remote: remote, configuration: .init(syncsAfterLocalWrites: false, syncsOnStart: false))
        let log = EventLog(sync)
        await sync.requestSynchronization()
        try await log.waitFor { $0.contains { if case .started = $0 { true } else { false } } }
        for _ in 0..<10 { await sync.requestSynchronization() }
        // Callers of synchronize() during the sync get the report of the one queued behind it.
        async let first = sync.synchronize()
        async let second = sync.synchronize()
        let reports = try await [first, second]
        #expect(reports.allSatisfy { $0.reason == .request } && reports[0] == reports[1])
        let completed = try await log.waitForCompletions(2)
        #expect(completed.count == 2 && log.started == [.request, .request])
        #expect(log.alternates && remote.mostAtOnce == 1)
        #expect(await sync.isSynchronizing == false)
    }

    @Test("stop waits for the running sync, reports stopped last, and no write syncs afterwards")
    func stopEndsCleanly() async throws {
        let stores = try LocalReplicationTests.Stores()
        let sync = AutomaticSync(
            store: stores.a, remote: SlowPeer(LocalPeer(stores.b), delay: .milliseconds(150)),
            configuration: .init(quietPeriod: .milliseconds(100), interval: .milliseconds(100)))
        let log = EventLog(sync)
        try await sync.start()
        try await log.waitFor { $0.contains { if case .started = $0 { true } else { false } } }
        await sync.stop()
        try await log.waitFor { $0.contains { if case .stopped = $0 { true } else { false } } }
        #expect(log.kinds == ["started", "completed", "stopped"])
        #expect(await sync.isRunning == false)
        #expect(await sync.isSynchronizing == false)
        try await stores.a.put(["_id": "after-stop"])
        try await Task.sleep(for: .milliseconds(500))
        #expect(log.kinds.count == 3)
        // cancel() cuts a running sync short instead, and says so.
        try await sync.start()
        try await log.waitFor { $0.count { if case .started = $0 { true } else { false } } == 2 }
        await sync.cancel()
        try await log.waitFor { $0.count { if case .stopped = $0 { true } else { false } } == 2 }
        #expect(log.kinds.suffix(2) == ["failed", "stopped"])
        guard case .failed(let failure)? = log.events.last(where: { EventLog.kind($0) == "failed" }), failure.error.code == .cancelled else {
            Issue.record("cancel() should end the running sync with .cancelled")
            return
        }
        #expect(await sync.consecutiveFailures == 0)
    }

    @Test("the delegate hears didRequestSynchronization, progress up to 1 and every event")
    func theDelegateHearsRequestsAndProgress() async throws {
        let stores = try LocalReplicationTests.Stores()
        for index in 0..<30 { try await stores.a.put(["_id": .string("doc-\(index)")]) }
        try await stores.b.put(["_id": "remote"])
        let delegate = RecordingDelegate()
        let sync = AutomaticSync(store: stores.a, remote: LocalPeer(stores.b), delegate: delegate)
        let report = try await sync.synchronize()
        #expect(report.pushed.docsWritten == 30 && report.pulled.docsWritten == 1)
        let (requests, progress, events) = delegate.snapshot
        #expect(requests == 1)
        #expect(!progress.isEmpty && progress == progress.sorted() && progress.last == 1)
        #expect(events.first == "started" && events.last == "completed" && events.contains("progress"))
    }
}

/// The trigger's rules, without a store or a clock.
@Suite("Sync trigger rules")
struct SyncTriggerStateMachineTests {
    typealias Machine = SyncTriggerStateMachine
    let t0 = ContinuousClock.now

    func machine(_ change: (inout AutomaticSync.Configuration) -> Void = { _ in }) -> Machine {
        var rules = AutomaticSync.Configuration(quietPeriod: .seconds(2), maximumDelay: .seconds(5))
        change(&rules)
        return Machine(rules: rules)
    }

    @Test("each write restarts the quiet period, but never past the maximum delay after the first")
    func debounceIsCapped() {
        var m = machine()
        _ = m.event(.started(updateSeq: 0, syncNow: false, at: t0))
        #expect(m.event(.localWrites(through: 1, at: t0)) == .none)
        #expect(m.nextDeadline == t0 + .seconds(2))
        _ = m.event(.localWrites(through: 2, at: t0 + .seconds(1)))
        #expect(m.nextDeadline == t0 + .seconds(3))
        _ = m.event(.localWrites(through: 3, at: t0 + .seconds(4)))
        #expect(m.nextDeadline == t0 + .seconds(5))
        #expect(m.event(.timer(at: t0 + .seconds(4.9))) == .none)
        #expect(m.event(.timer(at: t0 + .seconds(5))) == .sync(.localWrites))
    }

    @Test("what the sync pulled does not start another; a write made during the push does")
    func onlyTheAppsWritesTrigger() {
        var m = machine()
        _ = m.event(.started(updateSeq: 10, syncNow: true, at: t0))
        _ = m.event(.localWrites(through: 40, at: t0))  // the pull's writes, during the sync: ignored
        #expect(m.event(.succeeded(pushedThrough: 40, latest: 40, at: t0)) == .none)
        #expect(m.nextDeadline == nil)
        _ = m.event(.started(updateSeq: 40, syncNow: true, at: t0))
        #expect(m.event(.succeeded(pushedThrough: 40, latest: 41, at: t0)) == .none)
        #expect(m.nextDeadline == t0 + .seconds(2))
    }

    @Test("while backing off, writes and the schedule wait for the retry; a request runs at once")
    func backoffFoldsTriggersIntoTheRetry() {
        var m = machine {
            $0.interval = .seconds(1)
            $0.backoff = Backoff(initial: .seconds(10), maximum: .seconds(60), jitter: 0)
        }
        _ = m.event(.started(updateSeq: 0, syncNow: true, at: t0))
        #expect(m.event(.failed(retryable: true, at: t0, random: 0)) == .retry(after: .seconds(10)))
        _ = m.event(.localWrites(through: 5, at: t0 + .seconds(1)))
        #expect(m.nextDeadline == t0 + .seconds(10))
        #expect(m.event(.timer(at: t0 + .seconds(3))) == .none)
        #expect(m.event(.timer(at: t0 + .seconds(10))) == .sync(.retry))
        #expect(m.event(.failed(retryable: true, at: t0 + .seconds(10), random: 0)) == .retry(after: .seconds(20)))
        #expect(m.event(.requested(at: t0 + .seconds(11))) == .sync(.request))
        #expect(m.event(.succeeded(pushedThrough: 5, latest: 5, at: t0 + .seconds(12))) == .none)
        #expect(m.consecutiveFailures == 0 && m.nextDeadline == t0 + .seconds(13))
    }

    @Test("a final failure schedules no retry, a queued request still runs, and a cancellation is no failure")
    func finalFailuresAreNotRetried() {
        var m = machine()
        _ = m.event(.started(updateSeq: 3, syncNow: true, at: t0))
        #expect(m.event(.failed(retryable: false, at: t0, random: 0)) == .none)
        #expect(m.nextDeadline == nil)
        #expect(m.event(.requested(at: t0)) == .sync(.request))
        _ = m.event(.requested(at: t0))
        _ = m.event(.requested(at: t0))
        #expect(m.event(.failed(retryable: false, at: t0, random: 0)) == .sync(.request))
        #expect(m.event(.cancelled(at: t0)) == .none)
        #expect(m.consecutiveFailures == 2 && m.nextDeadline == nil)
    }
}

// MARK: Helpers

/// Every event of one sync, in order, for tests to wait on.
final class EventLog: Sendable {
    private final class Box: Sendable {
        let events = Mutex<[SyncEvent]>([])
    }

    private let box = Box()
    private let task: Task<Void, Never>

    init(_ sync: AutomaticSync) {
        let (events, box) = (sync.events(), box)
        task = Task {
            for await event in events { box.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    var events: [SyncEvent] { box.events.withLock { $0 } }

    /// Each event's name, in order, progress steps left out.
    var kinds: [String] { events.map(Self.kind).filter { $0 != "progress" } }

    /// The reasons of the syncs started so far.
    var started: [SyncReason] { events.compactMap { if case .started(let reason) = $0 { reason } else { nil } } }

    /// Whether each sync ended before the next began.
    var alternates: Bool {
        var inSync = false
        for event in events {
            switch event {
            case .started: if inSync { return false } else { inSync = true }
            case .completed, .failed: inSync = false
            case .progress, .stopped: break
            }
        }
        return true
    }

    static func kind(_ event: SyncEvent) -> String {
        switch event {
        case .started: "started"
        case .progress: "progress"
        case .completed: "completed"
        case .failed: "failed"
        case .stopped: "stopped"
        }
    }

    /// Waits until `condition` holds for the events so far (progress steps left out). The deadline is long:
    /// under the whole suite on two cores every test waits about a minute for its first turn, so a 60 s
    /// deadline set at the test's start expired before the sync's first event could be delivered.
    @discardableResult
    func waitFor(timeout: Duration = .seconds(300), _ condition: ([SyncEvent]) -> Bool) async throws -> [SyncEvent] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = events.filter { if case .progress = $0 { false } else { true } }
            if condition(current) { return current }
            guard ContinuousClock.now < deadline else {
                // The last replication steps say where a sync that never ended stood.
                let steps = events.suffix(6).compactMap { event -> String? in
                    guard case .progress(let step) = event else { return nil }
                    let replication = step.replication
                    return "\(step.direction) \(replication.state) read \(replication.stats.changesRead) written \(replication.stats.docsWritten)"
                }
                Issue.record("Timed out waiting; events so far: \(current.map(Self.kind)); last steps: \(steps)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The first `count` reports, once that many syncs completed.
    func waitForCompletions(_ count: Int) async throws -> [SyncReport] {
        let events = try await waitFor { $0.count { if case .completed = $0 { true } else { false } } >= count }
        return events.compactMap { if case .completed(let report) = $0 { report } else { nil } }
    }

    /// The first `count` failures, once that many syncs failed.
    func waitForFailures(_ count: Int) async throws -> [SyncFailure] {
        let events = try await waitFor { $0.count { if case .failed = $0 { true } else { false } } >= count }
        return Array(events.compactMap { if case .failed(let failure) = $0 { failure } else { nil } }.prefix(count))
    }
}

/// A peer whose `info()` takes a while (so a sync lasts long enough to be asked again), counting how many
/// `info()` calls overlap: the pull and the push of one sync never do, two syncs at once would.
final class SlowPeer: WrappingReplicationPeer {
    let base: any ReplicationPeer
    let delay: Duration
    private let inInfo = Mutex((now: 0, most: 0))

    init(_ base: any ReplicationPeer, delay: Duration) {
        self.base = base
        self.delay = delay
    }

    var mostAtOnce: Int { inInfo.withLock { $0.most } }

    func info() async throws -> PeerInfo {
        inInfo.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
        }
        defer { inInfo.withLock { $0.now -= 1 } }
        try await Task.sleep(for: delay)
        return try await base.info()
    }
}

/// Records what an ``AutomaticSyncDelegate`` is told.
final class RecordingDelegate: AutomaticSyncDelegate {
    private let calls = Mutex((requests: 0, progress: [Double](), events: [String]()))

    var snapshot: (requests: Int, progress: [Double], events: [String]) { calls.withLock { $0 } }

    func didRequestSynchronization(_ sync: AutomaticSync) { calls.withLock { $0.requests += 1 } }
    func automaticSync(_ sync: AutomaticSync, didUpdateProgress progress: Double) { calls.withLock { $0.progress.append(progress) } }
    func automaticSync(_ sync: AutomaticSync, didReport event: SyncEvent) {
        calls.withLock { $0.events.append(EventLog.kind(event)) }
    }
}
