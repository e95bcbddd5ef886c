internal import CloudantCore
internal import Foundation

/// Replicates one way, source → target, with CouchDB's replication protocol: checkpoints on both
/// sides so a restarted replication resumes, `_revs_diff` so only missing revisions move, fetches in
/// parallel, uploads with `new_edits: false` so histories and conflicts arrive intact, and retries with
/// backoff on dropped connections, 408, 429 and 5xx.
///
/// ```swift
/// let pull = Replicator(source: HTTPPeer(url: cluster), target: LocalPeer(store))
/// Task { for await step in pull.progress { print(step.documentsProcessed, step.pending ?? 0) } }
/// let stats = try await pull.run()
/// for failure in stats.failures { print(failure.id ?? "", failure.rev ?? "", failure.reason) }
/// ```
///
/// No revision is skipped silently: one the target refuses, or the source sends in a form that cannot be
/// written, is read and written once more, and if it still fails it is named in ``ReplicationStats/failures``
/// and the checkpoint stays before it, so the next run tries it again.
///
/// The protocol itself is ``ReplicationStateMachine``; this type performs its requests. A continuous
/// replication runs until ``stop()`` (it ends at a batch boundary, checkpoint written, and ``run()`` returns
/// the statistics) or cancellation (``cancel()`` or its task's, and ``run()`` throws
/// a `CloudantError` with code `cancelled`); a peer that is away does not end it (see ``ContinuousRetry``).
public final class Replicator: Sendable {
    /// Where documents come from.
    public let source: any ReplicationPeer
    /// Where they go.
    public let target: any ReplicationPeer
    /// How.
    public let options: ReplicationOptions
    /// Told of every step, on the replicator's task.
    public let delegate: (any ReplicatorDelegate)?
    /// Every step, as it happens; finishes when the replication stops.
    public let progress: AsyncStream<ReplicationProgress>

    let progressContinuation: AsyncStream<ReplicationProgress>.Continuation
    private let running = RunningTask()
    let stopping = StopRequest()

    /// Creates a replicator; nothing happens until ``run()``.
    public init(
        source: any ReplicationPeer, target: any ReplicationPeer, options: ReplicationOptions = ReplicationOptions(),
        delegate: (any ReplicatorDelegate)? = nil
    ) {
        self.source = source
        self.target = target
        self.options = options
        self.delegate = delegate
        (progress, progressContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Stops a running replication at once (as cancelling its task does): ``run()`` throws
    /// a `CloudantError` with code `cancelled`; the last checkpoint written is where the next run resumes.
    public func cancel() { running.cancel() }

    /// Stops a running replication at the next batch boundary: the batch being written is finished and its
    /// checkpoint written (a wait for changes, or for a peer to come back, ends at once), then ``run()``
    /// returns the statistics and reports ``ReplicationProgress/State/stopped``. Safe to call from any thread
    /// (a signal handler's task, for example), before or during ``run()``.
    public func stop() { stopping.request() }

    /// Runs the replication: until the source is drained (one-shot), or until stopped or cancelled
    /// (continuous).
    ///
    /// - Returns: What moved, and the revisions that could not be written (``ReplicationStats/failures``).
    /// - Throws: `CloudantError`, always: the failure that stopped it after retries (a peer code:
    ///   `CloudantError.Code.peerUnreachable`, `CloudantError.Code.peerRefused` with the peer's status and
    ///   CouchDB error, `CloudantError.Code.peerTimedOut`, `CloudantError.Code.peerViolation`, each naming
    ///   the request's URL), the store's own error when this side failed, or code `cancelled`. A continuous
    ///   replication throws only what cannot pass by waiting.
    @discardableResult
    public func run() async throws -> ReplicationStats {
        let work = Task { try await self.replicate() }
        running.set(work)
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// Tells the progress stream and the delegate where the replication is.
    func report(
        _ state: ReplicationProgress.State, _ stats: ReplicationStats, pending: Int? = nil, error: CloudantError? = nil,
        retryDelay: Duration? = nil, machine: ReplicationStateMachine? = nil
    ) {
        var step = ReplicationProgress(state: state, stats: stats, pending: pending, error: error, retryDelay: retryDelay)
        step.throughSequence = machine?.throughSeq
        step.checkpointedSequence = machine?.checkpointedSeq
        progressContinuation.yield(step)
        delegate?.replicator(self, didReport: step)
    }
}

/// The task of a running replication, so ``Replicator/cancel()`` can reach it.
final class RunningTask: @unchecked Sendable {
    // `lock` protects `task` and `cancelled`.
    private let lock = NSLock()
    private var task: Task<ReplicationStats, any Error>?
    private var cancelled = false

    func set(_ task: Task<ReplicationStats, any Error>) {
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let current = lock.withLock {
            cancelled = true
            return task
        }
        current?.cancel()
    }
}
