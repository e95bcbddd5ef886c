internal import Foundation

/// Wakes live-change observers after a write commits. Observers then read the changes feed from their
/// last sequence, so a wake-up carries no data and a missed one loses nothing.
final class ChangeNotifier: @unchecked Sendable {
    // `lock` protects `observers`, `nextID` and `published`.
    private let lock = NSLock()
    private var observers: [Int: AsyncStream<Void>.Continuation] = [:]
    private var nextID = 0
    private var published = 0

    /// How many times ``publish()`` was called: the writes committed since the store opened.
    var publishedCount: Int { lock.withLock { published } }

    /// A stream that yields once (coalesced) after each committed write.
    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = lock.withLock {
            nextID += 1
            observers[nextID] = continuation
            return nextID
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscription (the store was closed).
    func finish() {
        let current = lock.withLock {
            defer { observers = [:] }
            return Array(observers.values)
        }
        for continuation in current { continuation.finish() }
    }

    func publish() {
        let current = lock.withLock {
            published += 1
            return Array(observers.values)
        }
        for continuation in current { continuation.yield() }
    }
}
