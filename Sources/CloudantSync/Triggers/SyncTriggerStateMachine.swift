/// When an ``AutomaticSync`` syncs, decided from what happened: writes settled, the schedule came due, the app
/// asked, a sync ended or failed. Pure: it is told the time, the store's update sequence and the outcome of each
/// sync, and answers with the sync to start, so every rule is tested without a network or a clock.
///
/// The rules:
/// - Local writes wait for a quiet period (restarted by each write, but never past `maximumDelay` after the
///   first), so a burst becomes one sync.
/// - Never two syncs at once: whatever asks during a sync is folded into it, except an explicit request, which
///   queues exactly one follow-up (its writes may have missed the running push).
/// - After a retryable failure (the remote is away) the next attempt waits out the backoff; writes and the
///   schedule meanwhile ride on that retry instead of hammering the remote. An explicit request still runs
///   at once: the app may know the network is back.
/// - After a final failure (refused credentials, a refusal) nothing retries on its own; the next write,
///   tick or request tries again.
///
/// `package`, not public: apps configure it through ``AutomaticSync/Configuration``; its tests drive it directly.
package struct SyncTriggerStateMachine: Sendable {
    package typealias Instant = ContinuousClock.Instant

    package enum Event: Sendable {
        /// Triggers are armed; `updateSeq` is the store's sequence now, `syncNow` whether to sync at once.
        case started(updateSeq: Int64, syncNow: Bool, at: Instant)
        /// The store's sequence reached `through` (a write committed).
        case localWrites(through: Int64, at: Instant)
        /// The app asked for a sync.
        case requested(at: Instant)
        /// A deadline this machine gave (``nextDeadline``) may have passed.
        case timer(at: Instant)
        /// The running sync succeeded; everything up to `pushedThrough` is on the remote, and the store's
        /// sequence is now `latest`.
        case succeeded(pushedThrough: Int64, latest: Int64, at: Instant)
        /// The running sync failed; `random` (0…1) draws the backoff's jitter.
        case failed(retryable: Bool, at: Instant, random: Double)
        /// The running sync was cancelled (``AutomaticSync/cancel()``): not a failure, so nothing backs off.
        case cancelled(at: Instant)
        /// Triggers are disarmed; a running sync ends on its own.
        case stopped
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Start a sync now.
        case sync(SyncReason)
        /// The failed sync is retried after this wait.
        case retry(after: Duration)
    }

    /// The timing rules (the configuration's clock and jitter are the shell's).
    package let rules: AutomaticSync.Configuration
    package private(set) var isRunning = false
    package private(set) var isSyncing = false
    package private(set) var consecutiveFailures = 0
    /// The reason of the one sync queued behind the running one.
    package private(set) var followUp: SyncReason?
    /// Every write up to this sequence is on the remote; `nil` until a sync says so.
    private var pushedThrough: Int64?
    private var latestWrite: Int64 = 0
    private var firstUnsentWrite: Instant?
    private var debounceDeadline: Instant?
    private var retryDeadline: Instant?
    private var scheduleDeadline: Instant?

    package init(rules: AutomaticSync.Configuration) {
        self.rules = rules
    }

    /// When the machine next wants a ``Event/timer(at:)``: `nil` while a sync runs (its end decides) or when
    /// nothing is due.
    package var nextDeadline: Instant? {
        guard isRunning, !isSyncing else { return nil }
        if let retryDeadline { return retryDeadline }
        return [debounceDeadline, scheduleDeadline].compactMap { $0 }.min()
    }

    package mutating func event(_ event: Event) -> Action {
        switch event {
        case .started(let updateSeq, let syncNow, let now):
            isRunning = true
            latestWrite = max(latestWrite, updateSeq)
            if pushedThrough == nil, !syncNow { pushedThrough = updateSeq }
            (debounceDeadline, retryDeadline, firstUnsentWrite) = (nil, nil, nil)
            scheduleDeadline = rules.interval.map { now + $0 }
            return syncNow && !isSyncing ? begin(.start) : .none
        case .localWrites(let sequence, let now):
            latestWrite = max(latestWrite, sequence)
            // During a sync its end looks at the sequence; during a backoff the retry carries the writes.
            guard isRunning, !isSyncing, retryDeadline == nil, hasUnsentWrites else { return .none }
            armDebounce(now)
            return .none
        case .requested:
            guard !isSyncing else {
                followUp = .request
                return .none
            }
            return begin(.request)
        case .timer(let now):
            guard isRunning, !isSyncing else { return .none }
            if let retryDeadline {
                return retryDeadline <= now ? begin(.retry) : .none
            }
            if let debounceDeadline, debounceDeadline <= now { return begin(.localWrites) }
            if let scheduleDeadline, scheduleDeadline <= now { return begin(.schedule) }
            return .none
        case .succeeded(let sent, let latest, let now):
            isSyncing = false
            consecutiveFailures = 0
            pushedThrough = sent
            latestWrite = max(latestWrite, latest)
            return afterSync(now)
        case .failed(let retryable, let now, let random):
            isSyncing = false
            consecutiveFailures += 1
            guard retryable, isRunning else { return afterSync(now) }
            // The retry carries a queued request too: running it now would meet the same unreachable remote.
            followUp = nil
            scheduleDeadline = rules.interval.map { now + $0 }
            let wait = rules.backoff.delay(afterFailures: consecutiveFailures, random: random)
            retryDeadline = now + wait
            return .retry(after: wait)
        case .cancelled(let now):
            isSyncing = false
            return afterSync(now)
        case .stopped:
            isRunning = false
            followUp = nil
            (debounceDeadline, retryDeadline, scheduleDeadline, firstUnsentWrite) = (nil, nil, nil, nil)
            return .none
        }
    }

    /// Whether the store holds writes no sync has sent (all of them while no sync has run).
    private var hasUnsentWrites: Bool { pushedThrough.map { latestWrite > $0 } ?? true }

    private mutating func begin(_ reason: SyncReason) -> Action {
        isSyncing = true
        followUp = nil
        (debounceDeadline, retryDeadline, firstUnsentWrite) = (nil, nil, nil)
        return .sync(reason)
    }

    /// After a sync that succeeded or failed for good: the queued request, else writes made during it.
    private mutating func afterSync(_ now: Instant) -> Action {
        if let followUp { return begin(followUp) }
        guard isRunning else { return .none }
        scheduleDeadline = rules.interval.map { now + $0 }
        if consecutiveFailures == 0, rules.syncsAfterLocalWrites, hasUnsentWrites { armDebounce(now) }
        return .none
    }

    private mutating func armDebounce(_ now: Instant) {
        let first = firstUnsentWrite ?? now
        firstUnsentWrite = first
        debounceDeadline = min(now + rules.quietPeriod, first + rules.maximumDelay)
    }
}
