internal import CloudantCore
public import CloudantSync
public import Dispatch

/// The callback form of every `Repository` call, for code written against Evocation or OTFCloudantStore:
/// each runs the async call and delivers its result on `callbackQueue`.
///
/// ```swift
/// notes.find(.all, callbackQueue: .main) { result in
///     switch result {
///     case .success(let answer): show(answer.value, from: answer.origin)
///     case .failure(let error): report(error)
///     }
/// }
/// ```
extension Repository {
    /// The completion handler of a callback call.
    public typealias Completion<Value: Sendable> = @Sendable (Result<RepositoryResult<Value>, CloudantError>) -> Void

    /// `find(_:)` with a completion handler.
    public func find(_ criteria: RepositoryCriteria, callbackQueue: DispatchQueue = .main, completion: @escaping Completion<[Entity]>) {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await find(criteria) }
    }

    /// `findOne(_:)` with a completion handler.
    public func findOne(_ criteria: RepositoryCriteria, callbackQueue: DispatchQueue = .main, completion: @escaping Completion<Entity?>) {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await findOne(criteria) }
    }

    /// `findOne(id:)` with a completion handler.
    public func findOne(id: Entity.ID, callbackQueue: DispatchQueue = .main, completion: @escaping Completion<Entity?>)
    where Entity.ID: Sendable {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await findOne(id: id) }
    }

    /// `store(_:)` with a completion handler.
    public func store(_ models: [Entity], callbackQueue: DispatchQueue = .main, completion: @escaping Completion<[Entity]>) {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await store(models) }
    }

    /// `update(_:)` with a completion handler.
    public func update(_ models: [Entity], callbackQueue: DispatchQueue = .main, completion: @escaping Completion<[Entity]>) {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await update(models) }
    }

    /// `remove(_:)` with a completion handler.
    public func remove(_ models: [Entity], callbackQueue: DispatchQueue = .main, completion: @escaping Completion<[Entity]>) {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await remove(models) }
    }

    /// `storeOrUpdate(_:)` with a completion handler.
    public func storeOrUpdate(_ models: [Entity], callbackQueue: DispatchQueue = .main, completion: @escaping Completion<[Entity]>) {
        deliver(on: callbackQueue, completion) { () async throws(CloudantError) in try await storeOrUpdate(models) }
    }

    private func deliver<Value: Sendable>(
        on queue: DispatchQueue, _ completion: @escaping Completion<Value>,
        _ operation: @escaping @Sendable () async throws(CloudantError) -> RepositoryResult<Value>
    ) {
        Task {
            let result: Result<RepositoryResult<Value>, CloudantError>
            do throws(CloudantError) {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            queue.async { completion(result) }
        }
    }
}
