/// How long to wait before trying an unreachable peer again: exponential, capped, with jitter so that many
/// devices coming back at once do not all retry in step. A continuous replication (``ContinuousRetry``), the
/// offline queue's background replay (``OfflineWriteQueue``) and automatic sync (``AutomaticSync``) wait by it.
///
/// ```swift
/// let backoff = Backoff(initial: .seconds(30), maximum: .seconds(300))
/// backoff.delay(afterFailures: 3)   // 120 s, less up to 20 % drawn at random
/// ```
public struct Backoff: Sendable, Hashable {
    /// The wait after the first failure.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration
    /// How much each failure multiplies the wait.
    public var multiplier: Double
    /// The fraction of each wait drawn at random (0 for none): a wait `w` becomes one in `w·(1 − jitter) … w`.
    public var jitter: Double

    /// Creates a backoff.
    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(300), multiplier: Double = 2, jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.multiplier = max(1, multiplier)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait after `failures` consecutive failures (1 or more), with `random` in 0…1 drawing the jitter.
    public func delay(afterFailures failures: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let seconds = Self.seconds(initial) * pow(multiplier, Double(max(failures, 1) - 1))
        let capped = min(seconds, Self.seconds(maximum))
        return .milliseconds(Int64((capped * (1 - jitter * random) * 1_000).rounded()))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        // Capped early: past a few dozen doublings every wait is `maximum` anyway.
        var result = 1.0
        for _ in 0..<Int(min(exponent, 64)) { result *= base }
        return result
    }
}

/// The name ``Backoff`` had when only the offline queue used it.
public typealias ReplayBackoff = Backoff
