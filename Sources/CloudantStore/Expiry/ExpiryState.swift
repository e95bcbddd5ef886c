internal import Foundation

/// What a store knows in memory about expiry: the earliest expiry time recorded (so a read checks a clock
/// against one number instead of querying), and the background purge task while there is something to
/// expire.
final class ExpiryState: @unchecked Sendable {
    // `lock` protects `next` and `purger`.
    private let lock = NSLock()
    private var next: Double?
    private var purger: Task<Void, Never>?

    /// The earliest expiry time recorded, in seconds since 1970; nil when no document expires.
    var nextExpiry: Double? { lock.withLock { next } }

    /// Records the earliest expiry time after a commit, and whether a background purge must start for it.
    /// - Returns: true when there is something to expire and no purge task runs yet.
    func update(next time: Double?) -> Bool {
        lock.withLock {
            next = time
            return time != nil && purger == nil
        }
    }

    /// Keeps `task` as the background purge (ignored when one runs already: the caller then cancels it).
    func adopt(_ task: Task<Void, Never>) -> Bool {
        lock.withLock {
            guard purger == nil else { return false }
            purger = task
            return true
        }
    }

    /// The background purge ended (nothing left to expire, or the store closed).
    func purgerEnded() {
        lock.withLock { purger = nil }
    }

    /// Stops the background purge (the store is closing).
    func stop() {
        let task = lock.withLock {
            defer { purger = nil }
            return purger
        }
        task?.cancel()
    }
}
