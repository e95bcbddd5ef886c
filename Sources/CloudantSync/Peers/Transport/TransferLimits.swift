internal import Foundation
internal import Synchronization

/// The bounds a transport reads one answer within: how large its body may grow, how slowly it may arrive, and
/// when it must be complete. An ``HTTPPeer`` sets them on every request from its ``PeerLimits``; both transports
/// of the package enforce them while the body streams in, never after holding it whole.
public struct TransferLimits: Sendable, Hashable {
    /// The most body bytes read; more is a `CloudantError` `peerViolation` with ``PeerViolation/bodyTooLarge(limit:)``. `nil` for no bound.
    public var maximumBodySize: Int?
    /// The slowest pace accepted once the answer has begun, in bytes per second averaged over each
    /// ``rateWindow``; slower is a `peerViolation` with ``PeerViolation/tooSlow(bytes:seconds:)``. 0 for no bound.
    public var minimumRate: Int
    /// The window the pace is measured over.
    public var rateWindow: Duration
    /// How long after the request starts the pace begins to count: a long poll's wait, during which a server
    /// sends nothing but heartbeats.
    public var rateGrace: Duration
    /// How long after the request starts its answer must be complete; later is
    /// a `peerViolation` with ``PeerViolation/deadlineExceeded(seconds:)``. `nil` for none.
    public var deadline: Duration?

    /// Creates limits.
    public init(
        maximumBodySize: Int? = nil, minimumRate: Int = 0, rateWindow: Duration = .seconds(60), rateGrace: Duration = .zero,
        deadline: Duration? = nil
    ) {
        self.maximumBodySize = maximumBodySize
        self.minimumRate = minimumRate
        self.rateWindow = rateWindow
        self.rateGrace = rateGrace
        self.deadline = deadline
    }
}

/// Watches one transfer against its ``TransferLimits``: the transport reports the head and each piece of body
/// as they arrive, and ``run(_:)`` ends the transfer with the violation the moment the pace or the deadline is
/// broken (by cancelling it).
package final class TransferMonitor: Sendable {
    private struct Progress {
        var bytes = 0
        var head: ContinuousClock.Instant?
    }

    /// The limits watched (nil watches nothing).
    package let limits: TransferLimits?
    private let progress = Mutex(Progress())

    package init(_ limits: TransferLimits?) {
        self.limits = limits
    }

    /// The answer's head arrived: the pace counts from now (or from the end of ``TransferLimits/rateGrace``).
    package func headArrived() {
        progress.withLock { if $0.head == nil { $0.head = .now } }
    }

    /// `count` more body bytes arrived.
    /// - Throws: a `CloudantError` `peerViolation` with ``PeerViolation/bodyTooLarge(limit:)`` once the body is past ``TransferLimits/maximumBodySize``.
    package func received(_ count: Int) throws(HTTPTransportError) {
        let total = progress.withLock {
            if $0.head == nil { $0.head = .now }
            $0.bytes += count
            return $0.bytes
        }
        if let limit = limits?.maximumBodySize, total > limit { throw .tooLarge(limit: limit) }
    }

    /// The body bytes received so far.
    package var received: Int { progress.withLock { $0.bytes } }

    /// Runs `transfer`, ending it with a `peerViolation` with ``PeerViolation/tooSlow(bytes:seconds:)`` or
    /// a `peerViolation` with ``PeerViolation/deadlineExceeded(seconds:)`` (by cancelling it) when it breaks the pace or the
    /// deadline.
    package func run<T: Sendable>(_ transfer: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let limits, limits.deadline != nil || limits.minimumRate > 0 else { return try await transfer() }
        let start = ContinuousClock.now
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await transfer() }
            group.addTask {
                try await self.watch(limits, from: start)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw HTTPTransportError.cancelled
        }
    }

    /// Sleeps until the next moment a bound can be broken, checks, and throws the first broken one; runs until
    /// cancelled otherwise.
    private func watch(_ limits: TransferLimits, from start: ContinuousClock.Instant) async throws {
        let deadline = limits.deadline.map { start + $0 }
        let window = limits.rateWindow > .zero ? limits.rateWindow : .seconds(60)
        let windowSeconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        let minimum = Int((Double(limits.minimumRate) * windowSeconds).rounded(.up))
        var windowStart: ContinuousClock.Instant?
        var bytesAtWindowStart = 0
        while true {
            let now = ContinuousClock.now
            if let deadline, let allowed = limits.deadline, now >= deadline {
                throw HTTPTransportError.deadlineExceeded(seconds: Int(allowed.components.seconds))
            }
            let (bytes, head) = progress.withLock { ($0.bytes, $0.head) }
            var wake = now + window
            if minimum > 0, let head {
                let begin = max(head, start + limits.rateGrace)
                if let started = windowStart, now >= started + window {
                    if bytes - bytesAtWindowStart < minimum {
                        throw HTTPTransportError.tooSlow(bytes: minimum, seconds: Int(windowSeconds.rounded()))
                    }
                    windowStart = now
                    bytesAtWindowStart = bytes
                } else if windowStart == nil, now >= begin {
                    windowStart = now
                    bytesAtWindowStart = bytes
                }
                wake = windowStart.map { $0 + window } ?? begin
            }
            if let deadline { wake = min(wake, deadline) }
            try await Task.sleep(until: wake, clock: .continuous)
        }
    }
}
