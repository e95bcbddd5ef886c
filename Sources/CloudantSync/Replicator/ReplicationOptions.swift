public import Foundation

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
    /// Retries of failed requests.
    public var retry: RetryPolicy
    /// Revisions per fetch request, and how many fetches run at once.
    public var fetchChunk: Int
    public var fetchConcurrency: Int
    /// A fresh session id per run (spec R-5); injectable for tests.
    public var makeSessionID: @Sendable () -> String
    /// The clock checkpoint history records.
    public var now: @Sendable () -> Date

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

/// Retries with exponential backoff for failures worth retrying (spec R-24): dropped connections,
/// timeouts, HTTP 408, 429 and 5xx. Other failures (401, 403, 404, 409, 412, bad requests) are final.
public struct RetryPolicy: Sendable {
    /// Attempts per request, the first included.
    public var maximumAttempts: Int
    /// The first wait; each later wait doubles, up to ``maximumDelay``.
    public var initialDelay: Duration
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
                guard attempt < maximumAttempts, PeerFailure.isRetryable(error), !Task.isCancelled else { throw error }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, maximumDelay)
                attempt += 1
            }
        }
    }
}

/// A peer's failure, as the replicator classifies it.
public struct PeerFailure: Error, Sendable, CustomStringConvertible {
    /// The HTTP status, or nil for a transport failure (connection refused, dropped, timed out).
    public var status: Int?
    /// CouchDB's error name, when the peer sent one.
    public var error: String
    /// Why.
    public var reason: String

    /// Creates a failure.
    public init(status: Int?, error: String, reason: String) {
        self.status = status
        self.error = error
        self.reason = reason
    }

    public var description: String { "\(status.map { "HTTP \($0) " } ?? "")\(error): \(reason)" }

    /// Worth retrying: transport failures, 408, 429 and 5xx.
    public var isRetryable: Bool {
        guard let status else { return true }
        return status == 408 || status == 429 || status >= 500
    }

    static func isRetryable(_ error: any Error) -> Bool {
        (error as? PeerFailure)?.isRetryable ?? false
    }
}
