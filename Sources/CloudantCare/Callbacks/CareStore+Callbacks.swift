public import CloudantCareModule
public import CloudantCore
public import Dispatch
public import Foundation

/// The callback API OTFCloudantStore's and CareKit's users know (`callbackQueue:completion:`), as a thin adapter
/// over the async API: each completion is called exactly once, on `callbackQueue`, with the async call's result
/// or its `CloudantError` (the original called back twice on a partial failure, and always on the
/// main queue).
///
/// The default queue is `.main`, as in OTFCloudantStore and the `DocumentStore` callbacks. On
/// Linux the main queue only runs when the process drains it (an `async` entry point or `dispatchMain()`); a
/// server or a tool that blocks its main thread should pass a queue of its own.
extension CareStore {
    /// Adds the first version of each object; see `add(_:importing:)`.
    ///
    /// ```swift
    /// care.add([plan], callbackQueue: queue) { result in
    ///     if case .failure(let error) = result, error.code == .duplicateVersion { print("already there") }
    /// }
    /// ```
    public nonisolated func add<Entity: CareStorable>(
        _ entities: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.add(entities) }
    }

    /// Adds a new version of each object; see `update(_:importing:)`.
    public nonisolated func update<Entity: CareStorable>(
        _ entities: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.update(entities) }
    }

    /// Adds a tombstone version of each object; see `delete(_:)`.
    public nonisolated func delete<Entity: CareStorable>(
        _ entities: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.delete(entities) }
    }

    /// Stores versions exactly as given; see `importVersions(_:)`.
    public nonisolated func importVersions<Entity: CareStorable>(
        _ entities: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], CloudantError>) -> Void)? = nil
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.importVersions(entities) }
    }

    /// The versions that match `query` (outcomes by event date); see `fetch(_:query:)`.
    ///
    /// ```swift
    /// care.fetch(Outcome.self, query: CareQuery(for: today, calendar: calendar), callbackQueue: queue) { result in
    ///     let done = (try? result.get())?.count ?? 0
    /// }
    /// ```
    public nonisolated func fetch<Entity: CareStorable>(
        _ type: Entity.Type, query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.fetch(type, query: query) }
    }

    /// The versions in effect at `date`; see `fetchInEffect(_:at:)`.
    public nonisolated func fetchInEffect<Entity: CareStorable>(
        _ type: Entity.Type, at date: Date, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) { try await self.fetchInEffect(type, at: date) }
    }

    /// The events of task `id` in `[start, end)` with their outcomes; see `events(forTask:from:to:in:)`.
    public nonisolated func events(
        forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone? = nil,
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[TaskEvent<CareTask>], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) {
            try await self.events(forTask: id, from: start, to: end, in: timeZone)
        }
    }
}
