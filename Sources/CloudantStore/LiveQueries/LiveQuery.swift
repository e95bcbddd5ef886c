/// The results of a query as the store changes (see ``DocumentStore/observe(_:limits:visibility:)``): an
/// `AsyncSequence` of ``LiveQueryResult``, the current one first.
///
/// Iterate it in a task; cancelling the task, or dropping the sequence before iterating, stops the work.
public struct LiveQuery: AsyncSequence, Sendable {
    /// Each result of the query.
    public typealias Element = LiveQueryResult

    private let stream: AsyncThrowingStream<LiveQueryResult, any Error>

    init(_ stream: AsyncThrowingStream<LiveQueryResult, any Error>) {
        self.stream = stream
    }

    /// Iterates the results.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<LiveQueryResult, any Error>.AsyncIterator

        /// The next result, or nil when the store closed.
        /// - Throws: what ``DocumentStore/find(_:limits:visibility:)`` throws for the query.
        public mutating func next() async throws -> LiveQueryResult? {
            try await base.next()
        }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }
}
