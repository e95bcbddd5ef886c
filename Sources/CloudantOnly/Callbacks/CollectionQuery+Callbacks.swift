public import CloudantCore
public import CloudantStore
public import Dispatch

/// The callback API OTFCloudantStore users know, over the async one. Each completion is called exactly
/// once, on `callbackQueue`.
extension CollectionQuery {
    /// Runs the query and passes the documents to `completion`; see `get()`.
    ///
    /// ```swift
    /// store.collection("OCKContact").where(field: "title", value: "Nurse").get { result in
    ///     if case .success(let docs) = result { print(docs.count) }
    /// }
    /// ```
    public func get(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[JSONObject], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.get() }
    }

    /// Runs the query and passes the decoded entities to `completion`; see `get(_:)`.
    public func get<Entity: CloudantEntity>(
        _ type: Entity.Type, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], CloudantError>) -> Void
    ) where Entity.ID: CustomStringConvertible {
        store.deliver(on: callbackQueue, to: completion) { try await self.get(type) }
    }
}
