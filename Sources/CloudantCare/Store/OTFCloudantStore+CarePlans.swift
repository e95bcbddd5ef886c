public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// CareKit's names for carePlans on the drop-in store (`fetchCarePlans`, `addCarePlan`, `updateCarePlans`, …), singular
/// and plural, async and with callbacks, as the original's `OCKStoreProtocol` conformance offered them. Each is
/// one line over the generic care calls; results carry `OTFCloudantError` (CareKit's
/// `OCKStoreError` has the same cases).
///
/// ```swift
/// let carePlans = try await store.fetchCarePlans(query: CareQuery(for: today, calendar: calendar))
/// store.addCarePlan(carePlan) { result in … }
/// ```
extension OTFCloudantStore {
    // MARK: Async

    /// The carePlans that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchCarePlans(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [CarePlan] {
        try await fetchCare(CarePlan.self, query: query)
    }

    /// The current carePlan with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchCarePlan(withID id: String) async throws(OTFCloudantError) -> CarePlan {
        try await fetchCare(CarePlan.self, withID: id)
    }

    /// Adds carePlans, in one transaction.
    @discardableResult
    public func addCarePlans(_ carePlans: [CarePlan]) async throws(OTFCloudantError) -> [CarePlan] { try await addCare(carePlans) }

    /// Adds one carePlan.
    @discardableResult
    public func addCarePlan(_ carePlan: CarePlan) async throws(OTFCloudantError) -> CarePlan { try await one(addCare([carePlan])) }

    /// Adds a new version of each carePlan, in one transaction.
    @discardableResult
    public func updateCarePlans(_ carePlans: [CarePlan]) async throws(OTFCloudantError) -> [CarePlan] { try await updateCare(carePlans) }

    /// Adds a new version of one carePlan.
    @discardableResult
    public func updateCarePlan(_ carePlan: CarePlan) async throws(OTFCloudantError) -> CarePlan { try await one(updateCare([carePlan])) }

    /// Deletes carePlans (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteCarePlans(_ carePlans: [CarePlan]) async throws(OTFCloudantError) -> [CarePlan] { try await deleteCare(carePlans) }

    /// Deletes one carePlan.
    @discardableResult
    public func deleteCarePlan(_ carePlan: CarePlan) async throws(OTFCloudantError) -> CarePlan { try await one(deleteCare([carePlan])) }

    // MARK: Callbacks

    /// The carePlans that match `query`; see ``fetchCarePlans(query:)``.
    public func fetchCarePlans(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[CarePlan], OTFCloudantError>) -> Void
    ) {
        care(.fetch, on: callbackQueue, to: completion) { try await $0.fetch(CarePlan.self, query: query) }
    }

    /// The current carePlan with this id; see ``fetchCarePlan(withID:)``.
    public func fetchCarePlan(
        withID id: String, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<CarePlan, OTFCloudantError>) -> Void
    ) {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.fetchCarePlan(withID: id) }
    }

    /// Adds carePlans; see ``addCarePlans(_:)``.
    public func addCarePlans(
        _ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CarePlan], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.add, on: callbackQueue, to: completion) { try await $0.add(carePlans) }
    }

    /// Adds one carePlan; see ``addCarePlan(_:)``.
    public func addCarePlan(
        _ carePlan: CarePlan, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<CarePlan, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.add, on: callbackQueue, to: completion) { try await self.addCarePlan(carePlan) }
    }

    /// Updates carePlans; see ``updateCarePlans(_:)``.
    public func updateCarePlans(
        _ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CarePlan], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.update, on: callbackQueue, to: completion) { try await $0.update(carePlans) }
    }

    /// Updates one carePlan; see ``updateCarePlan(_:)``.
    public func updateCarePlan(
        _ carePlan: CarePlan, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<CarePlan, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.update, on: callbackQueue, to: completion) { try await self.updateCarePlan(carePlan) }
    }

    /// Deletes carePlans; see ``deleteCarePlans(_:)``.
    public func deleteCarePlans(
        _ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[CarePlan], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.delete, on: callbackQueue, to: completion) { try await $0.delete(carePlans) }
    }

    /// Deletes one carePlan; see ``deleteCarePlan(_:)``.
    public func deleteCarePlan(
        _ carePlan: CarePlan, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<CarePlan, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.delete, on: callbackQueue, to: completion) { try await self.deleteCarePlan(carePlan) }
    }
}
