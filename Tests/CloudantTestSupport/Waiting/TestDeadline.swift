public import Foundation

/// How long a test waits for something that must happen before it calls the run broken.
///
/// Tests never bet on how fast something happens: the whole suite runs beside other builds and a CPU hog on two
/// cores (CI does exactly that), where a task can wait minutes for a thread. A deadline only turns a hang into a
/// failure, so it is long; a test that needs an order of events awaits the event itself.
public enum TestDeadline {
    /// Five minutes: far beyond anything a working run needs, short enough that a hang still fails.
    public static let generous: Duration = .seconds(300)
}

/// A wait that outlived its deadline: what was awaited, and for how long. Only the waits below make one; tests
/// catch it and read it.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What the test was waiting for, in words.
    public var awaited: String
    /// The deadline that passed.
    public var deadline: Duration

    public var description: String { "\(awaited) did not happen within \(deadline)" }
}

/// Waits until `condition` holds, checking it again each time `interval` passes.
///
/// For state the test can only observe (a file that grows, a count a background task moves), not for an order of
/// events: those are awaited directly. The condition is checked once more after the deadline, because on a loaded
/// machine the last pause can itself end long after it.
/// - Parameters:
///   - awaited: what is awaited, for the failure's description.
///   - deadline: ends a broken run only (``TestDeadline/generous`` by default).
///   - interval: the pause between checks; it costs nothing but the wait itself.
/// - Throws: ``DeadlineExceeded`` when the condition still fails after the deadline; whatever `condition` throws.
public func waitUntil(
    _ awaited: @autoclosure () -> String = "the awaited condition", deadline: Duration = TestDeadline.generous,
    checkingEvery interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool
) async throws {
    let end = ContinuousClock.now + deadline
    while ContinuousClock.now < end {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    if try await condition() { return }
    throw DeadlineExceeded(awaited: awaited(), deadline: deadline)
}

/// ``waitUntil(_:deadline:checkingEvery:_:)`` for a thread that is not in Swift concurrency (a child process's
/// reader, a blocking helper): it pauses the calling thread between checks.
/// - Throws: ``DeadlineExceeded`` when the condition still fails after the deadline.
public func blockingWaitUntil(
    _ awaited: @autoclosure () -> String = "the awaited condition", deadline: Duration = TestDeadline.generous,
    checkingEvery interval: TimeInterval = 0.01, _ condition: () throws -> Bool
) throws {
    let end = ContinuousClock.now + deadline
    while ContinuousClock.now < end {
        if try condition() { return }
        Thread.sleep(forTimeInterval: interval)
    }
    if try condition() { return }
    throw DeadlineExceeded(awaited: awaited(), deadline: deadline)
}
