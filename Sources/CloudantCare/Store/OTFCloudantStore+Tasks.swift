public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// CareKit's names for tasks on the drop-in store (`fetchTasks`, `addTask`, `updateTasks`, …), singular
/// and plural, async and with callbacks, as the original's `OCKStoreProtocol` conformance offered them. Each is
/// one line over the generic care calls; results carry `OTFCloudantError` (CareKit's
/// `OCKStoreError` has the same cases).
///
/// ```swift
/// let tasks = try await store.fetchTasks(query: CareQuery(for: today, calendar: calendar))
/// store.addTask(task) { result in … }
/// ```
extension OTFCloudantStore {
    // MARK: Async

    /// The tasks that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchTasks(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [CareTask] {
        try await fetchCare(CareTask.self, query: query)
    }

    /// The current task with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchTask(withID id: String) async throws(OTFCloudantError) -> CareTask {
        try await fetchCare(CareTask.self, withID: id)
    }

    /// Adds tasks, in one transaction.
    @discardableResult
    public func addTasks(_ tasks: [CareTask]) async throws(OTFCloudantError) -> [CareTask] { try await addCare(tasks) }

    /// Adds one task.
    @discardableResult
    public func addTask(_ task: CareTask) async throws(OTFCloudantError) -> CareTask { try await one(addCare([task])) }

    /// Adds a new version of each task, in one transaction.
    @discardableResult
    public func updateTasks(_ tasks: [CareTask]) async throws(OTFCloudantError) -> [CareTask] { try await updateCare(tasks) }

    /// Adds a new version of one task.
    @discardableResult
    public func updateTask(_ task: CareTask) async throws(OTFCloudantError) -> CareTask { try await one(updateCare([task])) }

    /// Deletes tasks (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteTasks(_ tasks: [CareTask]) async throws(OTFCloudantError) -> [CareTask] { try await deleteCare(tasks) }

    /// Deletes one task.
    @discardableResult
    public func deleteTask(_ task: CareTask) async throws(OTFCloudantError) -> CareTask { try await one(deleteCare([task])) }

    // MARK: Callbacks

    /// The tasks that match `query`; see ``fetchTasks(query:)``.
    public func fetchTasks(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[CareTask], OTFCloudantError>) -> Void
    ) {
        care(.fetch, on: callbackQueue, to: completion) { try await $0.fetch(CareTask.self, query: query) }
    }

    /// The current task with this id; see ``fetchTask(withID:)``.
    public func fetchTask(
        withID id: String, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<CareTask, OTFCloudantError>) -> Void
    ) {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.fetchTask(withID: id) }
    }

    /// Adds tasks; see ``addTasks(_:)``.
    public func addTasks(
        _ tasks: [CareTask], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CareTask], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.add, on: callbackQueue, to: completion) { try await $0.add(tasks) }
    }

    /// Adds one task; see ``addTask(_:)``.
    public func addTask(
        _ task: CareTask, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<CareTask, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.add, on: callbackQueue, to: completion) { try await self.addTask(task) }
    }

    /// Updates tasks; see ``updateTasks(_:)``.
    public func updateTasks(
        _ tasks: [CareTask], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CareTask], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.update, on: callbackQueue, to: completion) { try await $0.update(tasks) }
    }

    /// Updates one task; see ``updateTask(_:)``.
    public func updateTask(
        _ task: CareTask, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<CareTask, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.update, on: callbackQueue, to: completion) { try await self.updateTask(task) }
    }

    /// Deletes tasks; see ``deleteTasks(_:)``.
    public func deleteTasks(
        _ tasks: [CareTask], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CareTask], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.delete, on: callbackQueue, to: completion) { try await $0.delete(tasks) }
    }

    /// Deletes one task; see ``deleteTask(_:)``.
    public func deleteTask(
        _ task: CareTask, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<CareTask, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.delete, on: callbackQueue, to: completion) { try await self.deleteTask(task) }
    }
}
