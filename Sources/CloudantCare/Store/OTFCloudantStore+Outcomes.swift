public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// CareKit's names for outcomes on the drop-in store (`fetchOutcomes`, `addOutcome`, `updateOutcomes`, …), singular
/// and plural, async and with callbacks, as the original's `OCKStoreProtocol` conformance offered them. Each is
/// one line over the generic care calls; results carry `OTFCloudantError` (CareKit's
/// `OCKStoreError` has the same cases).
///
/// ```swift
/// let outcomes = try await store.fetchOutcomes(query: CareQuery(for: today, calendar: calendar))
/// store.addOutcome(outcome) { result in … }
/// ```
extension OTFCloudantStore {
    // MARK: Async

    /// The outcomes that match `query` (matched by event date (CareKit's rule), or by creation date with `CareQuery.createdDateInterval`); `limit` and `offset` are honoured.
    public func fetchOutcomes(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [Outcome] {
        try await fetchCare(Outcome.self, query: query)
    }

    /// The current outcome with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchOutcome(withID id: String) async throws(OTFCloudantError) -> Outcome {
        try await fetchCare(Outcome.self, withID: id)
    }

    /// Adds outcomes, in one transaction.
    @discardableResult
    public func addOutcomes(_ outcomes: [Outcome]) async throws(OTFCloudantError) -> [Outcome] { try await addCare(outcomes) }

    /// Adds one outcome.
    @discardableResult
    public func addOutcome(_ outcome: Outcome) async throws(OTFCloudantError) -> Outcome { try await one(addCare([outcome])) }

    /// Adds a new version of each outcome, in one transaction.
    @discardableResult
    public func updateOutcomes(_ outcomes: [Outcome]) async throws(OTFCloudantError) -> [Outcome] { try await updateCare(outcomes) }

    /// Adds a new version of one outcome.
    @discardableResult
    public func updateOutcome(_ outcome: Outcome) async throws(OTFCloudantError) -> Outcome { try await one(updateCare([outcome])) }

    /// Deletes outcomes (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteOutcomes(_ outcomes: [Outcome]) async throws(OTFCloudantError) -> [Outcome] { try await deleteCare(outcomes) }

    /// Deletes one outcome.
    @discardableResult
    public func deleteOutcome(_ outcome: Outcome) async throws(OTFCloudantError) -> Outcome { try await one(deleteCare([outcome])) }

    // MARK: Callbacks

    /// The outcomes that match `query`; see ``fetchOutcomes(query:)``.
    public func fetchOutcomes(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Outcome], OTFCloudantError>) -> Void
    ) {
        care(.fetch, on: callbackQueue, to: completion) { try await $0.fetch(Outcome.self, query: query) }
    }

    /// The current outcome with this id; see ``fetchOutcome(withID:)``.
    public func fetchOutcome(
        withID id: String, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<Outcome, OTFCloudantError>) -> Void
    ) {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.fetchOutcome(withID: id) }
    }

    /// Adds outcomes; see ``addOutcomes(_:)``.
    public func addOutcomes(
        _ outcomes: [Outcome], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Outcome], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.add, on: callbackQueue, to: completion) { try await $0.add(outcomes) }
    }

    /// Adds one outcome; see ``addOutcome(_:)``.
    public func addOutcome(
        _ outcome: Outcome, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Outcome, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.add, on: callbackQueue, to: completion) { try await self.addOutcome(outcome) }
    }

    /// Updates outcomes; see ``updateOutcomes(_:)``.
    public func updateOutcomes(
        _ outcomes: [Outcome], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Outcome], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.update, on: callbackQueue, to: completion) { try await $0.update(outcomes) }
    }

    /// Updates one outcome; see ``updateOutcome(_:)``.
    public func updateOutcome(
        _ outcome: Outcome, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Outcome, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.update, on: callbackQueue, to: completion) { try await self.updateOutcome(outcome) }
    }

    /// Deletes outcomes; see ``deleteOutcomes(_:)``.
    public func deleteOutcomes(
        _ outcomes: [Outcome], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Outcome], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.delete, on: callbackQueue, to: completion) { try await $0.delete(outcomes) }
    }

    /// Deletes one outcome; see ``deleteOutcome(_:)``.
    public func deleteOutcome(
        _ outcome: Outcome, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Outcome, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.delete, on: callbackQueue, to: completion) { try await self.deleteOutcome(outcome) }
    }
}
