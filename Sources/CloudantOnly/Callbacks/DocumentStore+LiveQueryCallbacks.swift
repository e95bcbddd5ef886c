public import CloudantCore
public import CloudantStore
public import Dispatch

/// A running callback live query (see `DocumentStore/observe(_:callbackQueue:onChange:)`); call
/// `cancel()` to stop it.
public final class LiveQueryObservation: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Stops the live query. A callback already queued on the callback queue may still run.
    public func cancel() {
        task.cancel()
    }

    deinit {
        task.cancel()
    }
}

/// Live queries with a callback on a queue of the caller's, for code written around `callbackQueue`.
extension DocumentStore {
    /// Watches a query with a callback: `onChange` is called on `callbackQueue` with the current result,
    /// then after each commit that changes it; an error ends the observation. See `observe(_:limits:visibility:)`.
    ///
    /// ```swift
    /// let observation = store.observe(request, callbackQueue: .main) { result in
    ///     if case .success(let answer) = result { table.reload(answer.docs) }
    /// }
    /// // later
    /// observation.cancel()
    /// ```
    ///
    /// Keep the returned observation: releasing it stops the live query.
    public func observe(
        _ request: FindRequest, callbackQueue: DispatchQueue = .main,
        onChange: @escaping @Sendable (Result<LiveQueryResult, CloudantError>) -> Void
    ) -> LiveQueryObservation {
        let results = observe(request)
        let task = Task {
            do {
                for try await result in results {
                    guard !Task.isCancelled else { return }
                    callbackQueue.async { onChange(.success(result)) }
                }
            } catch {
                let failure = error as? CloudantError
                    ?? CloudantError(.storeUnreadable, "The live query stopped.", underlying: error)
                callbackQueue.async { onChange(.failure(failure)) }
            }
        }
        return LiveQueryObservation(task: task)
    }
}
