internal import CloudantCore
internal import CloudantStore

/// What a live feed reacts to: an item (a change, a live query's result), or a clock tick (for heartbeats
/// and timeouts).
enum FeedEvent<Item: Sendable>: Sendable {
    case item(Item)
    case tick
    case failed(any Error)
}

/// Merges a live source with a ticker into one stream; ending the stream's consumer cancels both.
enum FeedEvents {
    /// The merged stream, and `stop`, which ends it early (the server is shutting down, the client left).
    static func stream<Source: AsyncSequence & Sendable>(
        _ source: Source, tick: Duration
    ) -> (events: AsyncStream<FeedEvent<Source.Element>>, stop: @Sendable () -> Void) where Source.Element: Sendable {
        let (stream, continuation) = AsyncStream<FeedEvent<Source.Element>>.makeStream()
        let items = Task {
            do {
                for try await item in source { continuation.yield(.item(item)) }
            } catch {
                continuation.yield(.failed(error))
            }
            continuation.finish()
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                continuation.yield(.tick)
            }
        }
        continuation.onTermination = { _ in
            items.cancel()
            ticker.cancel()
        }
        return (stream, { continuation.finish() })
    }

    /// A store's changes after `options.since`, live, with ticks.
    static func changes(
        _ store: DocumentStore, options: ChangesOptions, tick: Duration
    ) -> (events: AsyncStream<FeedEvent<Change>>, stop: @Sendable () -> Void) {
        stream(store.liveChanges(options), tick: tick)
    }
}
