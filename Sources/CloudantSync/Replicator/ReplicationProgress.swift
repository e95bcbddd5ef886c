public import CloudantCore
/// Where a replication is, reported after every step that moves it (as an `AsyncSequence` from
/// ``Replicator/progress`` and to a ``ReplicatorDelegate``).
public struct ReplicationProgress: Sendable, Hashable {
    /// What the replicator is doing.
    public enum State: String, Sendable, Hashable {
        /// Moving documents.
        case active
        /// Continuous mode with nothing to do: waiting for changes.
        case idle
        /// One-shot replication finished.
        case complete
        /// Stopped by a failure (see the error thrown by ``Replicator/run()``).
        case failed
        /// Stopped by cancellation.
        case cancelled
        /// Continuous mode: a failure that may pass (``error``) stopped the replication; it starts again from
        /// its checkpoint after ``retryDelay``.
        case retrying
        /// Stopped by ``Replicator/stop()`` at a batch boundary, its checkpoint written.
        case stopped
    }

    /// The state.
    public var state: State
    /// Counters so far.
    public var stats: ReplicationStats
    /// Changes the source still has to send, when it says.
    public var pending: Int?
    /// What stopped the replication: the failure it waits out (``State/retrying``) or gave up on
    /// (``State/failed``).
    public var error: CloudantError?
    /// How long it waits before starting again (``State/retrying``).
    public var retryDelay: Duration?
    /// The source sequence every change up to which has been processed (CouchDB's `through_seq`), when known.
    public var throughSequence: JSONValue?
    /// The source sequence of the last checkpoint (CouchDB's `checkpointed_source_seq`), when known.
    public var checkpointedSequence: JSONValue?

    /// Creates a report.
    public init(
        state: State, stats: ReplicationStats, pending: Int? = nil, error: CloudantError? = nil, retryDelay: Duration? = nil
    ) {
        self.state = state
        self.stats = stats
        self.pending = pending
        self.error = error
        self.retryDelay = retryDelay
    }

    /// Documents processed (written or refused).
    public var documentsProcessed: Int { stats.docsWritten + stats.docWriteFailures }
}

/// Receives a replication's progress on the replicator's task (keep the work short).
public protocol ReplicatorDelegate: AnyObject, Sendable {
    /// The replication moved.
    func replicator(_ replicator: Replicator, didReport progress: ReplicationProgress)
}

extension ReplicationProgress {
    /// Reports are equal when everything but the error is, and the errors say the same
    /// (`CloudantError` carries underlying errors that are not themselves comparable).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.state == rhs.state && lhs.stats == rhs.stats && lhs.pending == rhs.pending
            && lhs.retryDelay == rhs.retryDelay && lhs.error?.description == rhs.error?.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(state)
        hasher.combine(stats)
        hasher.combine(pending)
        hasher.combine(retryDelay)
        hasher.combine(error?.description)
    }
}
