import Foundation

/// Runs blocking `work` (waiting for a child process, a socket read, `Thread.sleep`) on a thread of its own and
/// awaits its result, so the wait never holds one of Swift concurrency's cooperative threads.
///
/// The cooperative pool has as many threads as the machine has cores (two in CI), and the whole suite's tests
/// share it: a test that blocks one of them for the length of a child process stalls every other test, and on a
/// busy machine their deadlines pass while nothing is wrong.
/// - Throws: what `work` throws.
public func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// ``onOwnThread(_:)`` for work that cannot fail.
public func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
