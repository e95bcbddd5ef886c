/// How a continuous replication rides out a peer that is away: it never gives up on a failure that may pass
/// (`CloudantError.isRetryable`: an unreachable peer, a timeout, 429 and 5xx answers), but waits, longer
/// after each failure in a row, and starts again from the checkpoint both peers agree on.
///
/// The model is CouchDB's replicator: each request is first retried by ``ReplicationOptions/retry`` (5 retries
/// from 0.25 s, doubling, as `couch_replicator_httpc`); a replication whose request still fails is a crashed
/// job, which `couch_replicator_scheduler` starts again after 30 s, doubling with each crash in a row, and a job
/// that ran for 2 minutes without crashing starts its count again. Here the wait is capped at 5 minutes
/// (CouchDB caps a request's wait there; its scheduler's own cap, 2^10 × 30 s, suits a server juggling
/// hundreds of jobs rather than one sync someone waits for) and drawn with jitter, so devices that lost the
/// same server do not all come back at once.
///
/// ```swift
/// var options = ReplicationOptions(continuous: true)
/// options.continuousRetry = ContinuousRetry(backoff: Backoff(initial: .seconds(5), maximum: .seconds(60)))
/// ```
///
/// A one-shot replication ignores it: it keeps its bounded ``RetryPolicy`` and reports the failure.
public struct ContinuousRetry: Sendable, Hashable {
    /// The wait before each new start, by how many failures came in a row.
    public var backoff: Backoff
    /// A replication that ran this long before failing has recovered: its next wait is the first again.
    public var healthyAfter: Duration

    /// CouchDB's scheduler defaults: 30 s after the first failure, doubling, here capped at 5 minutes with 20 %
    /// jitter; 2 minutes of running count as recovered.
    public init(
        backoff: Backoff = Backoff(initial: .seconds(30), maximum: .seconds(300), multiplier: 2, jitter: 0.2),
        healthyAfter: Duration = .seconds(120)
    ) {
        self.backoff = backoff
        self.healthyAfter = healthyAfter
    }
}
