internal import Foundation

/// A value shared between concurrent requests behind a lock.
final class Locked<Value>: @unchecked Sendable {
    // `lock` protects `value`; every access goes through `withLock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
