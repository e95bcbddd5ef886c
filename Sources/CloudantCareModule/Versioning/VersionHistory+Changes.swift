internal import CloudantCore
public import Foundation

// CareKit's versioning of its entities: add inserts a root, update and delete append a version whose previous
// versions are all current tips (a merge version when there are several).
extension VersionHistory {
    /// Adds the first version of a new object: no version links, whatever the value carried.
    ///
    /// - Returns: The version as added.
    /// - Throws: `CloudantError.Code.duplicateVersion` when a version with that `id` or `uuid`
    ///   exists, deleted ones included.
    @discardableResult
    public mutating func add(_ entity: Entity) throws -> Entity {
        if version(uuid: entity.uuid) != nil || !versions(id: entity.id).isEmpty {
            throw CloudantError(
                .duplicateVersion, "An object with this id or uuid exists; update it instead of adding it.",
                context: .init(documentID: entity.id, field: "id"))
        }
        var root = entity
        root.previousVersionUUIDs = []
        root.nextVersionUUIDs = []
        insert(root)
        return root
    }

    /// Adds a new version of an existing object that replaces every current tip of its id.
    ///
    /// The new version is `entity` with `uuid`, `updatedDate = now`, previous versions = the tips, no next
    /// versions, and the tips' `createdDate` when `entity` has none. Its `effectiveDate` is kept as given.
    ///
    /// - Parameters:
    ///   - entity: The new values; its `id` names the object.
    ///   - uuid: The new version's uuid (from the caller's id generator).
    ///   - now: The current time (from the caller's clock).
    /// - Returns: The new version.
    /// - Throws: `CloudantError.Code.notFound` when no version has that id,
    ///   `CloudantError.Code.entityDeleted` when the id was deleted,
    ///   `CloudantError.Code.duplicateVersion` when `uuid` is taken.
    @discardableResult
    public mutating func update(_ entity: Entity, uuid: UUID, now: Date) throws -> Entity {
        try appendVersion(entity, uuid: uuid, now: now, deletedDate: nil)
    }

    /// Adds a tombstone version of an object: like ``update(_:uuid:now:)`` with `deletedDate = now`.
    ///
    /// The tombstone takes effect at `entity.effectiveDate`, as CareKit's copy of the value does: from then on
    /// no version of the object is in effect. Pass a later `effectiveDate` to keep earlier intervals showing
    /// the object.
    ///
    /// - Returns: The tombstone.
    /// - Throws: The codes of ``update(_:uuid:now:)``.
    @discardableResult
    public mutating func delete(_ entity: Entity, uuid: UUID, now: Date) throws -> Entity {
        try appendVersion(entity, uuid: uuid, now: now, deletedDate: now)
    }

    private mutating func appendVersion(_ entity: Entity, uuid: UUID, now: Date, deletedDate: Date?) throws
        -> Entity
    {
        let tips = tips(id: entity.id)
        guard !tips.isEmpty else {
            throw CloudantError(
                .notFound, "No version has this id; add the object first.",
                context: .init(documentID: entity.id, field: "id"))
        }
        guard !isDeleted(id: entity.id) else {
            throw CloudantError(
                .entityDeleted, "This object was deleted; add a new object with another id.",
                context: .init(documentID: entity.id, field: "deletedDate"))
        }
        guard version(uuid: uuid) == nil else {
            throw CloudantError(
                .duplicateVersion, "The new version's uuid is already used; generate a fresh one.",
                context: .init(documentID: entity.id, field: "uuid"))
        }
        var next = entity
        next.uuid = uuid
        next.previousVersionUUIDs = tips.map(\.uuid)
        next.nextVersionUUIDs = []
        next.updatedDate = now
        next.deletedDate = deletedDate
        if next.createdDate == nil { next.createdDate = tips.compactMap(\.createdDate).min() }
        insert(next)
        return next
    }
}
