internal import Foundation

extension DocumentStore {
    /// Waits until the store's update sequence passes `sequence`, or `timeout` elapses (CouchDB's
    /// `feed=longpoll`). Returns whether a change arrived.
    ///
    /// ```swift
    /// if try await store.waitForChange(after: lastSeq, timeout: .seconds(10)) { /* read the feed */ }
    /// ```
    public func waitForChange(after sequence: Int64, timeout: Duration) async throws -> Bool {
        // Subscribe before reading the sequence, so a write between the two still wakes us.
        let wakeUps = notifier.subscribe()
        if try await info().updateSeq > sequence { return true }
        let (signals, signal) = AsyncStream<Bool>.makeStream()
        let listener = Task {
            for await _ in wakeUps { signal.yield(true) }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            signal.yield(false)
        }
        defer {
            listener.cancel()
            timer.cancel()
            signal.finish()
        }
        for await woke in signals {
            guard woke else { return false }
            if try await info().updateSeq > sequence { return true }
        }
        return false
    }
}
