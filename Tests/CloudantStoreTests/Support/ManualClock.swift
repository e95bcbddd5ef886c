import Foundation

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    // `lock` protects `current`.
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func set(_ date: Date) { lock.withLock { current = date } }
}
