public import CloudantCore
public import CloudantStore
public import Dispatch

/// The callback API OTFCloudantStore users know: a thin adapter over the async API. Each completion is
/// called exactly once, on `callbackQueue` (the original called back twice on a partial failure, and
/// always on the main queue).
extension DocumentStore {
    /// Adds entities; see `add(_:)`.
    public func add<Entity: CloudantEntity>(
        _ items: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) where Entity.ID: CustomStringConvertible {
        deliver(on: callbackQueue, to: completion) { try await self.add(items) }
    }

    /// Updates entities; see `update(_:)`.
    public func update<Entity: CloudantEntity>(
        _ items: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) where Entity.ID: CustomStringConvertible {
        deliver(on: callbackQueue, to: completion) { try await self.update(items) }
    }

    /// Deletes entities; see `delete(_:)`.
    public func delete<Entity: CloudantEntity>(
        _ items: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) where Entity.ID: CustomStringConvertible {
        deliver(on: callbackQueue, to: completion) { try await self.delete(items) }
    }

    /// Every live entity of a kind; see `get(_:)`.
    public func get<Entity: CloudantEntity>(
        _ type: Entity.Type, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], CloudantError>) -> Void
    ) where Entity.ID: CustomStringConvertible {
        deliver(on: callbackQueue, to: completion) { try await self.get(type) }
    }

    /// The entities with these ids; see `get(_:ids:)`.
    public func get<Entity: CloudantEntity>(
        _ type: Entity.Type, ids: [Entity.ID], callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], CloudantError>) -> Void
    ) where Entity.ID: CustomStringConvertible & Sendable {
        deliver(on: callbackQueue, to: completion) { try await self.get(type, ids: ids) }
    }

    /// Runs `work` and calls `completion` exactly once with its result, on `queue`: the one way every
    /// callback adapter (the store's, and those of plugins such as Care and Health) turns an async call
    /// into a callback. An error that is not a `CloudantError` arrives wrapped as `storeUnreadable`.
    ///
    /// ```swift
    /// store.deliver(on: .global(), to: completion) { try await store.info() }
    /// ```
    public func deliver<Value: Sendable>(
        on queue: DispatchQueue, to completion: (@Sendable (Result<Value, CloudantError>) -> Void)?,
        _ work: @escaping @Sendable () async throws -> Value
    ) {
        Task {
            let result: Result<Value, CloudantError>
            do {
                result = .success(try await work())
            } catch let error as CloudantError {
                result = .failure(error)
            } catch {
                result = .failure(CloudantError(.storeUnreadable, "The operation failed unexpectedly.", underlying: error))
            }
            queue.async { completion?(result) }
        }
    }
}
