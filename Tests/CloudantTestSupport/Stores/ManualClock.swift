public import Foundation
import Synchronization

/// A clock the test sets by hand, injected where a store or service takes a `now` closure, so time-dependent
/// behaviour (expiry, session lifetimes, audit times) is tested without waiting.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
/// options.now = { clock.now }
/// clock.advance(by: 3_600)
/// ```
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    /// A clock that reads `start` until it is set or advanced.
    public init(_ start: Date) { current = Mutex(start) }

    /// The time the clock shows.
    public var now: Date { current.withLock { $0 } }

    /// Sets the time.
    public func set(_ date: Date) { current.withLock { $0 = date } }

    /// Moves the time forward (backward when negative) by `seconds`.
    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
