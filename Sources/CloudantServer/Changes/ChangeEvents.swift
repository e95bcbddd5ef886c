internal import CloudantCore
internal import CloudantStore

/// What a live feed reacts to: a change, or a clock tick (for heartbeats and timeouts).
enum ChangeEvent: Sendable {
    case change(Change)
    case tick
    case failed(any Error)
}

/// Merges a store's live changes with a ticker into one stream; ending the stream's consumer cancels both.
enum ChangeEvents {
    /// The merged stream, and `stop`, which ends it early (the server is shutting down).
    static func stream(
        _ store: DocumentStore, options: ChangesOptions, tick: Duration
    ) -> (events: AsyncStream<ChangeEvent>, stop: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream()
        let changes = Task {
            do {
                for try await change in store.liveChanges(options) { continuation.yield(.change(change)) }
            } catch {
                continuation.yield(.failed(error))
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                continuation.yield(.tick)
            }
        }
        continuation.onTermination = { _ in
            changes.cancel()
            ticker.cancel()
        }
        return (stream, { continuation.finish() })
    }
}
