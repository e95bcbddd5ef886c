import Foundation

/// Holds the threads that ``wait()`` until ``open()``: a blocking job a test keeps running for as long as it
/// looks at the state the job holds.
public final class Gate: @unchecked Sendable {
    // `condition` protects `isOpen`.
    private let condition = NSCondition()
    private var isOpen = false

    public init() {}

    /// Blocks the calling thread until the gate is open.
    public func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    /// Lets every waiting thread and every later ``wait()`` go.
    public func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}
