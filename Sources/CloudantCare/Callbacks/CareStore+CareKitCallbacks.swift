public import CloudantCareModule
public import CloudantCore
public import Dispatch

/// CareKit's and OTFCloudantStore's per-kind names (`fetchTasks(query:callbackQueue:completion:)`, `addOutcomes`,
/// …) for the five kinds OTFCloudantStore supported, each one line over the generic callbacks in
/// `CareStore+Callbacks.swift`. Results carry `CloudantError` where CareKit had `OCKStoreError`.
///
/// ```swift
/// care.fetchOutcomes(query: CareQuery(for: today, calendar: calendar), callbackQueue: queue) { result in
///     if case .success(let outcomes) = result { print(outcomes.count) }
/// }
/// ```
extension CareStore {
    /// The patients that match `query`, as CareKit's `fetchPatients`; see `fetch(_:query:)`.
    public nonisolated func fetchPatients(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Patient], CloudantError>) -> Void
    ) {
        fetch(Patient.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// Adds patients, as CareKit's `addPatients`; see `add(_:importing:)`.
    public nonisolated func addPatients(
        _ patients: [Patient], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Patient], CloudantError>) -> Void)? = nil
    ) {
        add(patients, callbackQueue: callbackQueue, completion: completion)
    }

    /// Updates patients, as CareKit's `updatePatients`; see `update(_:importing:)`.
    public nonisolated func updatePatients(
        _ patients: [Patient], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Patient], CloudantError>) -> Void)? = nil
    ) {
        update(patients, callbackQueue: callbackQueue, completion: completion)
    }

    /// Deletes patients, as CareKit's `deletePatients`; see `delete(_:)`.
    public nonisolated func deletePatients(
        _ patients: [Patient], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Patient], CloudantError>) -> Void)? = nil
    ) {
        delete(patients, callbackQueue: callbackQueue, completion: completion)
    }

    /// The carePlans that match `query`, as CareKit's `fetchCarePlans`; see `fetch(_:query:)`.
    public nonisolated func fetchCarePlans(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[CarePlan], CloudantError>) -> Void
    ) {
        fetch(CarePlan.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// Adds carePlans, as CareKit's `addCarePlans`; see `add(_:importing:)`.
    public nonisolated func addCarePlans(
        _ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CarePlan], CloudantError>) -> Void)? = nil
    ) {
        add(carePlans, callbackQueue: callbackQueue, completion: completion)
    }

    /// Updates carePlans, as CareKit's `updateCarePlans`; see `update(_:importing:)`.
    public nonisolated func updateCarePlans(
        _ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CarePlan], CloudantError>) -> Void)? = nil
    ) {
        update(carePlans, callbackQueue: callbackQueue, completion: completion)
    }

    /// Deletes carePlans, as CareKit's `deleteCarePlans`; see `delete(_:)`.
    public nonisolated func deleteCarePlans(
        _ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CarePlan], CloudantError>) -> Void)? = nil
    ) {
        delete(carePlans, callbackQueue: callbackQueue, completion: completion)
    }

    /// The contacts that match `query`, as CareKit's `fetchContacts`; see `fetch(_:query:)`.
    public nonisolated func fetchContacts(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Contact], CloudantError>) -> Void
    ) {
        fetch(Contact.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// Adds contacts, as CareKit's `addContacts`; see `add(_:importing:)`.
    public nonisolated func addContacts(
        _ contacts: [Contact], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Contact], CloudantError>) -> Void)? = nil
    ) {
        add(contacts, callbackQueue: callbackQueue, completion: completion)
    }

    /// Updates contacts, as CareKit's `updateContacts`; see `update(_:importing:)`.
    public nonisolated func updateContacts(
        _ contacts: [Contact], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Contact], CloudantError>) -> Void)? = nil
    ) {
        update(contacts, callbackQueue: callbackQueue, completion: completion)
    }

    /// Deletes contacts, as CareKit's `deleteContacts`; see `delete(_:)`.
    public nonisolated func deleteContacts(
        _ contacts: [Contact], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Contact], CloudantError>) -> Void)? = nil
    ) {
        delete(contacts, callbackQueue: callbackQueue, completion: completion)
    }

    /// The tasks that match `query`, as CareKit's `fetchTasks`; see `fetch(_:query:)`.
    public nonisolated func fetchTasks(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[CareTask], CloudantError>) -> Void
    ) {
        fetch(CareTask.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// Adds tasks, as CareKit's `addTasks`; see `add(_:importing:)`.
    public nonisolated func addTasks(
        _ tasks: [CareTask], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CareTask], CloudantError>) -> Void)? = nil
    ) {
        add(tasks, callbackQueue: callbackQueue, completion: completion)
    }

    /// Updates tasks, as CareKit's `updateTasks`; see `update(_:importing:)`.
    public nonisolated func updateTasks(
        _ tasks: [CareTask], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CareTask], CloudantError>) -> Void)? = nil
    ) {
        update(tasks, callbackQueue: callbackQueue, completion: completion)
    }

    /// Deletes tasks, as CareKit's `deleteTasks`; see `delete(_:)`.
    public nonisolated func deleteTasks(
        _ tasks: [CareTask], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CareTask], CloudantError>) -> Void)? = nil
    ) {
        delete(tasks, callbackQueue: callbackQueue, completion: completion)
    }

    /// The outcomes that match `query` (by event date), as CareKit's `fetchOutcomes`; see `fetch(_:query:)`.
    public nonisolated func fetchOutcomes(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Outcome], CloudantError>) -> Void
    ) {
        fetch(Outcome.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// Adds outcomes, as CareKit's `addOutcomes`; see `add(_:importing:)`.
    public nonisolated func addOutcomes(
        _ outcomes: [Outcome], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Outcome], CloudantError>) -> Void)? = nil
    ) {
        add(outcomes, callbackQueue: callbackQueue, completion: completion)
    }

    /// Updates outcomes, as CareKit's `updateOutcomes`; see `update(_:importing:)`.
    public nonisolated func updateOutcomes(
        _ outcomes: [Outcome], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Outcome], CloudantError>) -> Void)? = nil
    ) {
        update(outcomes, callbackQueue: callbackQueue, completion: completion)
    }

    /// Deletes outcomes, as CareKit's `deleteOutcomes`; see `delete(_:)`.
    public nonisolated func deleteOutcomes(
        _ outcomes: [Outcome], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Outcome], CloudantError>) -> Void)? = nil
    ) {
        delete(outcomes, callbackQueue: callbackQueue, completion: completion)
    }
}
