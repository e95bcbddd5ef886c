public import Foundation

extension AutomaticSync {
    /// When an ``AutomaticSync`` syncs, and how it retries.
    ///
    /// ```swift
    /// var configuration = AutomaticSync.Configuration()
    /// configuration.quietPeriod = .seconds(5)      // wait for typing to stop
    /// configuration.interval = .seconds(15 * 60)   // and pick up the server's changes every 15 minutes
    /// ```
    public struct Configuration: Sendable {
        /// Sync after local writes, once they settle.
        public var syncsAfterLocalWrites: Bool
        /// How long the store must stay quiet after a write before the sync starts: a burst of writes becomes
        /// one sync.
        public var quietPeriod: Duration
        /// The longest a write waits for its sync while writes keep coming (the quiet period never passes).
        public var maximumDelay: Duration
        /// Sync when this long passed since the last sync ended (`nil`: no schedule). Picks up the remote's
        /// changes when this device writes nothing.
        public var interval: Duration?
        /// Sync as soon as ``AutomaticSync/start()`` runs. Without it, writes made before the start wait for the
        /// next sync of any kind.
        public var syncsOnStart: Bool
        /// The waits between automatic retries while the remote is unreachable: exponential, capped, with
        /// jitter so devices coming back together do not retry in step. A success resets it.
        public var backoff: Backoff
        /// How each replication runs. `continuous` is ignored: each sync is one-shot, so it ends and reports.
        /// The default retries a failed request once; the backoff above handles longer outages.
        public var replication: ReplicationOptions
        /// The clock stamping reports and retry times.
        public var now: @Sendable () -> Date
        /// Draws the backoff's jitter, 0…1.
        public var random: @Sendable () -> Double

        /// Creates a configuration: after writes (2 s quiet, 30 s at most), on start, no schedule, backoff from
        /// 1 s to 5 minutes.
        public init(
            syncsAfterLocalWrites: Bool = true, quietPeriod: Duration = .seconds(2), maximumDelay: Duration = .seconds(30),
            interval: Duration? = nil, syncsOnStart: Bool = true,
            backoff: Backoff = Backoff(initial: .seconds(1), maximum: .seconds(300)),
            replication: ReplicationOptions = ReplicationOptions(retry: RetryPolicy(maximumAttempts: 2)),
            now: @escaping @Sendable () -> Date = { Date() },
            random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
        ) {
            self.syncsAfterLocalWrites = syncsAfterLocalWrites
            self.quietPeriod = quietPeriod
            self.maximumDelay = max(quietPeriod, maximumDelay)
            self.interval = interval
            self.syncsOnStart = syncsOnStart
            self.backoff = backoff
            self.replication = replication
            self.now = now
            self.random = random
        }
    }
}
