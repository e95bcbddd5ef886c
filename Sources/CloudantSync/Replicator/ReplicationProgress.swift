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
    }

    /// The state.
    public var state: State
    /// Counters so far.
    public var stats: ReplicationStats
    /// Changes the source still has to send, when it says.
    public var pending: Int?

    /// Documents processed (written or refused).
    public var documentsProcessed: Int { stats.docsWritten + stats.docWriteFailures }
}

/// Receives a replication's progress on the replicator's task (keep the work short).
public protocol ReplicatorDelegate: AnyObject, Sendable {
    /// The replication moved.
    func replicator(_ replicator: Replicator, didReport progress: ReplicationProgress)
}
