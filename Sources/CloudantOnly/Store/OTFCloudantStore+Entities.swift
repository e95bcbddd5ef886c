public import CloudantCore
internal import CloudantStore
public import Dispatch

/// OTFCloudantStore's typed CRUD: `add`, `get`, `update` and `delete` of `Codable & Identifiable &
/// OTFCloudantRevision` values, async and with `callbackQueue` + `Result`.
///
/// Each call is one transaction over `DocumentStore`'s entity API: every item is written or none is,
/// and a failure names the item (`itemIndex`, `documentID`) in its reason.
///
/// ```swift
/// let saved = try await store.add([note])            // revId set from the new _rev
/// store.update(saved, callbackQueue: .global()) { result in … }
/// ```
extension OTFCloudantStore {
    /// Adds entities; an id that exists fails the batch with `OTFCloudantError.addFailed(reason:)`.
    public func add<Entity: CloudantEntity>(
        _ items: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], OTFCloudantError>) -> Void)? = nil
    ) where Entity.ID: CustomStringConvertible {
        deliver(.add, on: callbackQueue, to: completion) { try await self.documentStore.add(items) }
    }

    /// Every entity of type `Entity` (inferred from `completion`), ordered by id.
    public func get<Entity: CloudantEntity>(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], OTFCloudantError>) -> Void
    ) where Entity.ID: CustomStringConvertible {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.documentStore.get(Entity.self) }
    }

    /// Updates entities; each must carry the `revId` it was read at, else
    /// `OTFCloudantError.updateFailed(reason:)` (a conflict: read it again and reapply the change).
    public func update<Entity: CloudantEntity>(
        _ items: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], OTFCloudantError>) -> Void)? = nil
    ) where Entity.ID: CustomStringConvertible {
        deliver(.update, on: callbackQueue, to: completion) { try await self.documentStore.update(items) }
    }

    /// Deletes entities; each must carry the `revId` it was read at (the original deleted every revision
    /// without checking, so a delete could erase a change it had not seen).
    public func delete<Entity: CloudantEntity>(
        _ items: [Entity], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Entity], OTFCloudantError>) -> Void)? = nil
    ) where Entity.ID: CustomStringConvertible {
        deliver(.delete, on: callbackQueue, to: completion) { try await self.documentStore.delete(items) }
    }

    /// Adds entities in one transaction.
    /// - Returns: The entities with their new `revId`.
    /// - Throws: `OTFCloudantError.addFailed(reason:)` when an id exists or the write fails;
    ///   `OTFCloudantError.invalidValue(reason:)` for an entity the kind's validation refuses.
    @discardableResult
    public func add<Entity: CloudantEntity>(_ items: [Entity]) async throws(OTFCloudantError) -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await perform(.add) { try await self.documentStore.add(items) }
    }

    /// Every entity of `type`, ordered by id.
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` naming a document that no longer decodes.
    public func get<Entity: CloudantEntity>(_ type: Entity.Type) async throws(OTFCloudantError) -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await perform(.fetch) { try await self.documentStore.get(type) }
    }

    /// Updates entities in one transaction.
    /// - Throws: `OTFCloudantError.updateFailed(reason:)` for a missing or stale `revId`.
    @discardableResult
    public func update<Entity: CloudantEntity>(_ items: [Entity]) async throws(OTFCloudantError) -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await perform(.update) { try await self.documentStore.update(items) }
    }

    /// Deletes entities in one transaction.
    /// - Returns: The entities with their tombstone's `revId`.
    /// - Throws: `OTFCloudantError.deleteFailed(reason:)` for a missing or stale `revId`.
    @discardableResult
    public func delete<Entity: CloudantEntity>(_ items: [Entity]) async throws(OTFCloudantError) -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await perform(.delete) { try await self.documentStore.delete(items) }
    }
}
