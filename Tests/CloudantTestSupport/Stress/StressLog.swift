import Foundation

/// What a stress test saw, ordered by one counter that every send and every answer ticks: each write with the
/// ticks of its send and its answer and the answer's status, and the test's own `Event`s (deletions, creations).
/// Writers on many threads or tasks record into one log; the test checks the store against it afterwards.
///
/// ```swift
/// let log = StressLog<Deletion>()
/// let sent = log.tick()
/// let answer = try await client.put("/db/\(id)", body)
/// log.write(id: id, sent: sent, acknowledged: log.tick(), status: answer.status)
/// ```
public final class StressLog<Event: Sendable>: @unchecked Sendable {
    /// One write: its document id, the ticks of its send and its answer, and the answer's status.
    public struct Write: Sendable {
        public var id: String
        public var sent: Int
        public var acknowledged: Int
        public var status: Int
    }

    // `lock` protects everything below.
    private let lock = NSLock()
    private var clock = 0
    private var storedWrites: [Write] = []
    private var storedEvents: [Event] = []
    private var isStopped = false
    private var acknowledgedOnce = false

    public init() {}

    /// The next tick of the log's counter.
    public func tick() -> Int { lock.withLock { clock += 1; return clock } }

    /// Whether ``stop()`` was called: the writers end their loops.
    public var stopped: Bool { lock.withLock { isStopped } }

    /// Tells the writers to stop.
    public func stop() { lock.withLock { isStopped = true } }

    /// The writes recorded so far.
    public var writes: [Write] { lock.withLock { storedWrites } }

    /// The events recorded so far.
    public var events: [Event] { lock.withLock { storedEvents } }

    /// The writes and the events, read together.
    public var snapshot: (writes: [Write], events: [Event]) { lock.withLock { (storedWrites, storedEvents) } }

    /// Records a write.
    public func write(id: String, sent: Int, acknowledged: Int, status: Int) {
        lock.withLock { storedWrites.append(Write(id: id, sent: sent, acknowledged: acknowledged, status: status)) }
    }

    /// Records an event.
    public func event(_ event: Event) { lock.withLock { storedEvents.append(event) } }

    /// True the first time it is called: a writer calls it on each acknowledged write, so a test whose clock
    /// starts at the first acknowledgement learns when that is.
    public func isFirstAcknowledgement() -> Bool {
        lock.withLock {
            defer { acknowledgedOnce = true }
            return !acknowledgedOnce
        }
    }
}
