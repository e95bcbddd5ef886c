public import CloudantCore
public import CloudantStore
public import Dispatch

/// The callback form OTFCloudantStore users know, over ``CollectionQuery/getSamples()``.
extension CollectionQuery {
    /// Runs the query and passes the samples to `completion`, exactly once, on `callbackQueue`.
    ///
    /// ```swift
    /// store.collection(healthKitSampleType: .quantity).getSamples { result in
    ///     if case .success(let samples) = result { print(samples.count) }
    /// }
    /// ```
    public func getSamples(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[AnyHealthSample], CloudantError>) -> Void
    ) {
        Task {
            let result: Result<[AnyHealthSample], CloudantError>
            do {
                result = .success(try await getSamples())
            } catch let error as CloudantError {
                result = .failure(error)
            } catch {
                result = .failure(CloudantError(.fetchFailed, "Reading health samples failed.", underlying: error))
            }
            callbackQueue.async { completion(result) }
        }
    }
}
