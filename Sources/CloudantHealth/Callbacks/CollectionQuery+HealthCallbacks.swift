public import CloudantCore
public import CloudantHealthModule
internal import CloudantOnly
public import CloudantStore
public import Dispatch

/// The callback form OTFCloudantStore users know, over `CollectionQuery.getSamples()`.
extension CollectionQuery {
    /// Runs the query and passes the samples to `completion`, exactly once, on `callbackQueue`.
    ///
    /// ```swift
    /// HealthStore(store: store).collection(healthKitSampleType: .quantity).getSamples { result in
    ///     if case .success(let samples) = result { print(samples.count) }
    /// }
    /// ```
    public func getSamples(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[AnyHealthSample], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.getSamples() }
    }
}
