public import CloudantCore
public import Foundation

/// What an ``AutomaticSync`` reports, in order: each sync is `started`, then `progress` steps, then
/// `completed` or `failed`; ``stopped`` once ``AutomaticSync/stop()`` or ``AutomaticSync/cancel()`` has ended it.
///
/// ```swift
/// for await event in sync.events() {
///     switch event {
///     case .progress(let step): bar.progress = step.fractionCompleted
///     case .failed(let failure): status = "Offline; next try \(failure.nextRetry?.formatted() ?? "on the next change")"
///     default: break
///     }
/// }
/// ```
public enum SyncEvent: Sendable {
    /// A sync began, for this reason.
    case started(SyncReason)
    /// The running sync moved documents.
    case progress(SyncProgress)
    /// The running sync finished: both directions ran to the end.
    case completed(SyncReport)
    /// The running sync stopped on an error; ``SyncFailure/nextRetry`` says when it runs again by itself.
    case failed(SyncFailure)
    /// The triggers are disarmed and no sync runs.
    case stopped
}

/// Why a sync started.
public enum SyncReason: String, Sendable, Hashable, CaseIterable {
    /// ``AutomaticSync/start()`` (with ``AutomaticSync/Configuration/syncsOnStart``).
    case start
    /// Local writes, once they settled for the quiet period.
    case localWrites
    /// The schedule's interval passed without a sync.
    case schedule
    /// The app asked: ``AutomaticSync/requestSynchronization()`` or ``AutomaticSync/synchronize()``.
    case request
    /// The backoff after a failure ran out.
    case retry
}

/// The direction a sync is moving: it pulls first, then pushes (CareKit's `pullThenPush`), so what the push
/// sends already sits on top of what the remote had.
public enum SyncDirection: String, Sendable, Hashable {
    /// Remote → this store.
    case pull
    /// This store → remote.
    case push
}

/// One step of a running sync.
public struct SyncProgress: Sendable, Hashable {
    /// The replication moving.
    public var direction: SyncDirection
    /// Its counters and state.
    public var replication: ReplicationProgress
    /// The whole sync's share done, 0…1 (the pull is the first half, the push the second): CareKit's
    /// `didUpdateProgress` value. Never goes down within one sync; an estimate while a peer does not say how
    /// many changes are pending.
    public var fractionCompleted: Double
}

/// What one sync moved each way.
public struct SyncReport: Sendable, Hashable {
    /// Why it ran.
    public var reason: SyncReason
    /// The pull: the remote's changes received.
    public var pulled: ReplicationStats
    /// The push: this store's changes sent.
    public var pushed: ReplicationStats
    /// When it began (``AutomaticSync/Configuration/now``).
    public var startedAt: Date
    /// When it ended.
    public var finishedAt: Date
}

/// A sync that stopped on an error, and when the next attempt comes.
public struct SyncFailure: Sendable {
    /// Why the failed sync ran.
    public var reason: SyncReason
    /// What stopped it; `CloudantError.isRetryable` says whether it is the network (retried with
    /// backoff) or final (credentials, a refusal, this store: not retried until something asks).
    public var error: CloudantError
    /// Failures in a row, this one included (a cancellation is not counted); a success resets the count.
    public var consecutiveFailures: Int
    /// The backoff before the automatic retry; `nil` when none is scheduled.
    public var retryDelay: Duration?
    /// When the automatic retry runs (``AutomaticSync/Configuration/now`` plus ``retryDelay``); `nil` when
    /// none is scheduled.
    public var nextRetry: Date?
}
