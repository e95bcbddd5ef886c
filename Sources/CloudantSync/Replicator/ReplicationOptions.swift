public import Foundation
public import CloudantCore

/// How a ``Replicator`` runs.
public struct ReplicationOptions: Sendable {
    /// Changes per batch (CouchDB's replicator reads 500 per worker, PouchDB 100).
    public var batchSize: Int
    /// Keep replicating new changes until cancelled.
    public var continuous: Bool
    /// In continuous mode, how long one wait for new changes lasts before asking again.
    public var longpoll: Duration
    /// Which documents replicate.
    public var filter: ReplicationFilter
    /// Read and write checkpoints (turn off to always start from the beginning).
    public var useCheckpoints: Bool
    /// Retries of failed requests. A one-shot replication stops with the failure once they are spent.
    public var retry: RetryPolicy
    /// What a continuous replication does once a request's retries are spent: wait, and start again from its
    /// checkpoint, for as long as the failure may pass.
    public var continuousRetry = ContinuousRetry()
    /// Revisions per fetch request.
    public var fetchChunk: Int
    /// How many fetch requests run at once.
    public var fetchConcurrency: Int
    /// A fresh session id per run; injectable for tests.
    public var makeSessionID: @Sendable () -> String
    /// The clock checkpoint history records.
    public var now: @Sendable () -> Date
    /// The source sequence a replication with no checkpoint yet starts from (CouchDB's `since_seq`): changes
    /// up to it are not replicated. It is part of the replication's id (``Replicator/replicationID()``), so the
    /// same peers replicated without it, or from another sequence, keep checkpoints of their own; once this
    /// replication has a checkpoint it resumes from there, as CouchDB 3.5.2's replicator does, instead of
    /// reading again everything after `since_seq` on every run and every continuous restart.
    public var sinceSequence: JSONValue? = nil
    /// Attachments stored at least this long move on their own, in pieces, when both peers can
    /// (``ReplicationPeer/sendsLargeAttachmentsSeparately``, ``ReplicationPeer/receivesLargeAttachmentsSeparately``), instead of inline in their document: memory
    /// then stays bounded whatever their size. Default 1 MB; `Int.max` inlines everything.
    public var separateAttachmentSize = 1 << 20

    /// Creates options; the defaults suit a one-shot replication.
    public init(
        batchSize: Int = 1_000, continuous: Bool = false, longpoll: Duration = .seconds(10),
        filter: ReplicationFilter = .none, useCheckpoints: Bool = true, retry: RetryPolicy = RetryPolicy(),
        fetchChunk: Int = 250, fetchConcurrency: Int = 4,
        makeSessionID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.batchSize = batchSize
        self.continuous = continuous
        self.longpoll = longpoll
        self.filter = filter
        self.useCheckpoints = useCheckpoints
        self.retry = retry
        self.fetchChunk = fetchChunk
        self.fetchConcurrency = fetchConcurrency
        self.makeSessionID = makeSessionID
        self.now = now
    }
}

/// Retries with exponential backoff for failures worth retrying (`CloudantError.isRetryable`):
/// an unreachable peer, timeouts (408, 504 and the request's own), 429 and 5xx. Other failures (401, 403, 404,
/// 409, 412, bad requests, local failures) are final.
public struct RetryPolicy: Sendable {
    /// Attempts per request, the first included.
    public var maximumAttempts: Int
    /// The first wait; each later wait doubles, up to ``maximumDelay``.
    public var initialDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration

    /// CouchDB's defaults: 5 retries, from 0.25 s, doubling.
    public init(maximumAttempts: Int = 6, initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(300)) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// No retries.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Runs `operation`, retrying retryable failures with backoff.
    func run<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        var delay = initialDelay
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                guard attempt < maximumAttempts, (error as? CloudantError)?.isRetryable == true, !Task.isCancelled else {
                    throw error
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, maximumDelay)
                attempt += 1
            }
        }
    }
}
