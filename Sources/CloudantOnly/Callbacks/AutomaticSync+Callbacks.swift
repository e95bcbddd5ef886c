internal import CloudantCore
public import CloudantSync
public import Dispatch

/// The callback form of `AutomaticSync`, for code written against OTFCloudantStore or CareKit's completion
/// handlers: results and events delivered on `callbackQueue`.
///
/// ```swift
/// let observation = sync.observe(callbackQueue: .main) { event in
///     if case .progress(let step) = event { progressView.progress = Float(step.fractionCompleted) }
/// }
/// sync.synchronize(callbackQueue: .main) { result in print(result) }
/// ```
extension AutomaticSync {
    /// `synchronize()` with the result delivered to `completion` exactly once, on `callbackQueue`.
    public nonisolated func synchronize(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<SyncReport, CloudantError>) -> Void
    ) {
        Task {
            let result: Result<SyncReport, CloudantError>
            do throws(CloudantError) {
                result = .success(try await synchronize())
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion(result) }
        }
    }

    /// Delivers every event from now on to `handler`, in order, on `callbackQueue`, until the returned
    /// observation is cancelled or released.
    public nonisolated func observe(
        callbackQueue: DispatchQueue = .main, _ handler: @escaping @Sendable (SyncEvent) -> Void
    ) -> SyncObservation {
        let events = events()
        return SyncObservation(
            Task {
                for await event in events {
                    callbackQueue.async { handler(event) }
                }
            })
    }
}

/// An `AutomaticSync/observe(callbackQueue:_:)` in progress: keep it as long as events should arrive.
public final class SyncObservation: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    deinit { task.cancel() }

    /// Stops delivering events.
    public func cancel() { task.cancel() }
}
