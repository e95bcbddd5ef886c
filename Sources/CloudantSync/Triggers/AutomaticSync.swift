public import CloudantCore
public import CloudantStore
internal import Foundation

/// Keeps a store in sync with a remote by itself: after local writes (once they settle), on a schedule, and
/// when asked, retrying with backoff while the remote is away. CareKit's `automaticallySynchronizes`, with the
/// reports of its `OCKRemoteSynchronizationDelegate`.
///
/// ```swift
/// let remote = try HTTPPeer(url: URL(string: "https://host/userdb-6a6f")!, authentication: .session(user: "jo", password: p))
/// let sync = AutomaticSync(store: store, remote: remote, configuration: .init(interval: .seconds(900)))
/// try await sync.start()
/// Task { for await event in sync.events() { if case .failed(let failure) = event { show(failure) } } }
/// try await store.put(["_id": "note", "text": "hi"])   // synced 2 s after the last write of a burst
/// await sync.stop()
/// ```
///
/// Each sync is a one-shot pull then push (CareKit's `pullThenPush`) through the ``Replicator``, resuming from
/// its checkpoints. Writes are seen through the store's own change notifications, not by polling. Pulling first
/// lets the trigger tell its own writes from the app's: what the pull stored sits below the sequence read
/// before the push, so only writes above it (made during the push, or after) start another sync, and a sync
/// never triggers itself for ever (CareKit's automatic sync does: its own pulled writes ask for the next sync).
///
/// Never two syncs at once; the timing rules are `SyncTriggerStateMachine`'s (this actor is its shell).
public actor AutomaticSync {
    /// The store kept in sync.
    public nonisolated let store: DocumentStore
    /// The database it syncs with.
    public nonisolated let remote: any ReplicationPeer
    /// When it syncs and how it retries.
    public nonisolated let configuration: Configuration

    private let channel = SyncEventChannel()
    private var machine: SyncTriggerStateMachine
    private var watcher: Task<Void, Never>?
    private var timer: (task: Task<Void, Never>, deadline: ContinuousClock.Instant, generation: Int)?
    private var timerGeneration = 0
    private var running: Task<Void, Never>?
    /// `synchronize()` calls answered by the sync that runs now, and by the next one.
    private var waitingForCurrent: [CheckedContinuation<Result<SyncReport, CloudantError>, Never>] = []
    private var waitingForNext: [CheckedContinuation<Result<SyncReport, CloudantError>, Never>] = []

    /// Creates the trigger; nothing happens until ``start()`` (or ``synchronize()``).
    ///
    /// - Parameters:
    ///   - store: The store to keep in sync.
    ///   - remote: The database it syncs with.
    ///   - configuration: When syncs happen and how failures back off.
    ///   - delegate: Told of each sync and its progress (held weakly).
    public init(
        store: DocumentStore, remote: any ReplicationPeer, configuration: Configuration = Configuration(),
        delegate: (any AutomaticSyncDelegate)? = nil
    ) {
        self.store = store
        self.remote = remote
        self.configuration = configuration
        machine = SyncTriggerStateMachine(rules: configuration)
        channel.delegate = delegate
        channel.attach(self)
    }

    deinit {
        watcher?.cancel()
        timer?.task.cancel()
        running?.cancel()
    }

    /// Every event from now on, in order (each call gets its own sequence; it ends when this sync is released
    /// or the consuming task is cancelled). The newest 256 are kept for a consumer that falls behind.
    public nonisolated func events() -> AsyncStream<SyncEvent> { channel.subscribe() }

    /// Replaces the delegate (held weakly).
    public func setDelegate(_ delegate: (any AutomaticSyncDelegate)?) { channel.delegate = delegate }

    /// Whether the triggers are armed (between ``start()`` and ``stop()``).
    public var isRunning: Bool { machine.isRunning }
    /// Whether a sync runs now.
    public var isSynchronizing: Bool { machine.isSyncing }
    /// Syncs failed in a row; 0 after a success.
    public var consecutiveFailures: Int { machine.consecutiveFailures }

    /// Arms the triggers: watches the store's writes, starts the schedule, and syncs at once when
    /// ``Configuration/syncsOnStart`` says so. Does nothing when already running.
    ///
    /// - Throws: The store's `CloudantError` when it cannot be read (it is closed).
    public func start() async throws(CloudantError) {
        guard !machine.isRunning else { return }
        let sequence = try await updateSequence()
        guard !machine.isRunning else { return }
        watch(after: sequence)
        handle(.started(updateSeq: sequence, syncNow: configuration.syncsOnStart, at: .now))
    }

    /// Asks for a sync now, without waiting for it: it starts at once, or, when one runs, exactly one more runs
    /// after it (however often this is called meanwhile). Works without ``start()`` too.
    public func requestSynchronization() {
        handle(.requested(at: .now))
    }

    /// Syncs now and returns what moved: the sync started for this call, or, when one runs, the one queued
    /// after it (see ``requestSynchronization()``).
    ///
    /// - Throws: The `CloudantError` that stopped that sync (code `cancelled` when ``cancel()`` or ``stop()``
    ///   came first).
    @discardableResult
    public func synchronize() async throws(CloudantError) -> SyncReport {
        let result = await withCheckedContinuation { continuation in
            waitingForNext.append(continuation)
            handle(.requested(at: .now))
        }
        return try result.get()
    }

    /// Disarms the triggers and waits for a running sync to end (it finishes its work). Then reports
    /// ``SyncEvent/stopped``. ``start()`` arms them again.
    public func stop() async {
        await shutDown(cancelling: false)
    }

    /// Disarms the triggers and cancels a running sync (it resumes from its checkpoints next time). Then
    /// reports ``SyncEvent/stopped``.
    public func cancel() async {
        await shutDown(cancelling: true)
    }

    // MARK: The shell

    private func shutDown(cancelling: Bool) async {
        _ = machine.event(.stopped)
        let (watcher, timer) = (self.watcher, self.timer?.task)
        self.watcher = nil
        self.timer = nil
        watcher?.cancel()
        timer?.cancel()
        await watcher?.value
        await timer?.value
        // A request made while waiting may queue one more sync behind the running one: wait for that too.
        while let running {
            if cancelling { running.cancel() }
            await running.value
        }
        answer(&waitingForNext, with: .failure(.cancelled(url: nil)))
        channel.send(.stopped)
    }

    /// Feeds the machine and does what it says; then sets the timer for its next deadline.
    @discardableResult
    private func handle(_ event: SyncTriggerStateMachine.Event) -> SyncTriggerStateMachine.Action {
        let action = machine.event(event)
        if case .sync(let reason) = action { begin(reason) }
        armTimer()
        return action
    }

    private func begin(_ reason: SyncReason) {
        waitingForCurrent += waitingForNext
        waitingForNext = []
        running = Task { await self.run(because: reason) }
    }

    /// One sync: pull, read the sequence, push; then tell the machine how it went.
    private func run(because reason: SyncReason) async {
        channel.requestSynchronization()
        channel.send(.started(reason))
        let startedAt = configuration.now()
        var options = configuration.replication
        options.continuous = false
        let local = LocalPeer(store)
        let outcome: Result<(SyncReport, Int64, Int64), CloudantError>
        do {
            let pulled = try await Replicator(
                source: remote, target: local, options: options, delegate: SyncProgressRelay(.pull, channel)
            ).run()
            let sent = try await updateSequence()
            let pushed = try await Replicator(
                source: local, target: remote, options: options, delegate: SyncProgressRelay(.push, channel)
            ).run()
            let latest = try await updateSequence()
            let report = SyncReport(
                reason: reason, pulled: pulled, pushed: pushed, startedAt: startedAt, finishedAt: configuration.now())
            outcome = .success((report, sent, latest))
        } catch {
            outcome = .failure(CloudantError.replicating(error, cancelled: Task.isCancelled))
        }
        finish(reason, outcome)
    }

    private func finish(_ reason: SyncReason, _ outcome: Result<(SyncReport, Int64, Int64), CloudantError>) {
        running = nil
        switch outcome {
        case .success(let (report, sent, latest)):
            channel.send(.completed(report))
            answer(&waitingForCurrent, with: .success(report))
            handle(.succeeded(pushedThrough: sent, latest: latest, at: .now))
        case .failure(let error):
            answer(&waitingForCurrent, with: .failure(error))
            let action: SyncTriggerStateMachine.Action
            if error.code == .cancelled {
                action = handle(.cancelled(at: .now))
            } else {
                action = handle(.failed(retryable: error.isRetryable, at: .now, random: configuration.random()))
            }
            var failure = SyncFailure(
                reason: reason, error: error, consecutiveFailures: machine.consecutiveFailures, retryDelay: nil, nextRetry: nil)
            if case .retry(let wait) = action {
                failure.retryDelay = wait
                failure.nextRetry = configuration.now().addingTimeInterval(Self.seconds(wait))
                // The retry carries the requests queued behind this sync; their callers hear of this failure.
                answer(&waitingForNext, with: .failure(error))
            }
            channel.send(.failed(failure))
        }
    }

    private func answer(
        _ waiting: inout [CheckedContinuation<Result<SyncReport, CloudantError>, Never>],
        with result: Result<SyncReport, CloudantError>
    ) {
        let answered = waiting
        waiting = []
        for continuation in answered { continuation.resume(returning: result) }
    }

    /// Watches the store's change notifications; a wake-up reads the sequence and tells the machine.
    private func watch(after sequence: Int64) {
        let store = self.store
        watcher = Task { [weak self] in
            var seen = sequence
            while !Task.isCancelled {
                do {
                    // The timeout only bounds one wait; a store that changes nothing costs nothing meanwhile.
                    guard try await store.waitForChange(after: seen, timeout: .seconds(300)) else { continue }
                    seen = try await store.info().updateSeq
                } catch {
                    return  // The store closed: there is nothing left to watch.
                }
                guard let self else { return }
                await self.handle(.localWrites(through: seen, at: .now))
            }
        }
    }

    /// One timer task for the machine's next deadline; a later deadline is left to the running timer, which
    /// wakes, finds nothing due yet, and sets itself again.
    private func armTimer() {
        guard let deadline = machine.nextDeadline else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if let timer, timer.deadline <= deadline { return }
        timer?.task.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        let task = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            await self?.timerFired(generation)
        }
        timer = (task, deadline, generation)
    }

    private func timerFired(_ generation: Int) {
        guard timer?.generation == generation else { return }
        timer = nil
        handle(.timer(at: .now))
    }

    private func updateSequence() async throws(CloudantError) -> Int64 {
        do {
            return try await store.info().updateSeq
        } catch {
            throw CloudantError.replicating(error, cancelled: false)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
