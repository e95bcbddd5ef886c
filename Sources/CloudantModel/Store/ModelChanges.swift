internal import CloudantCore
internal import CloudantModelSchema

/// A set of inserts, updates and deletes to apply in one transaction with ``ModelStore/save(_:)-(ModelChanges)``:
/// Core Data's unsaved changes of a context.
///
/// ```swift
/// let changes = ModelChanges().saving(soup).saving(leek).deleting(oldRecipe)
/// try await models.save(changes)
/// ```
public struct ModelChanges: Sendable {
    /// One object to write: its entity, id, the revision it was read at (`nil` for a new object) and body.
    struct Saved: Sendable {
        var entity: EntityDescription
        var id: String
        var revId: String?
        var body: JSONObject
    }

    /// One object to delete.
    struct Deleted: Sendable {
        var entity: EntityDescription
        var id: String
        var revId: String?
    }

    var saved: [Saved] = []
    var deleted: [Deleted] = []

    /// No changes.
    public init() {}

    /// Adds an insert (no `revId`) or an update (the `revId` it was read at).
    /// - Throws: what the object's `jsonObject()` throws.
    public mutating func save<Entity: ModelEntity>(_ object: Entity) throws {
        saved.append(Saved(entity: Entity.entity, id: object.id, revId: object.revId, body: try object.jsonObject()))
    }

    /// Adds a delete; the object's `revId` must be current, and its delete rules apply.
    public mutating func delete<Entity: ModelEntity>(_ object: Entity) {
        deleted.append(Deleted(entity: Entity.entity, id: object.id, revId: object.revId))
    }

    /// These changes and an insert or update.
    public func saving<Entity: ModelEntity>(_ object: Entity) throws -> ModelChanges {
        var copy = self
        try copy.save(object)
        return copy
    }

    /// These changes and a delete.
    public func deleting<Entity: ModelEntity>(_ object: Entity) -> ModelChanges {
        var copy = self
        copy.delete(object)
        return copy
    }

    /// Whether there is nothing to do.
    public var isEmpty: Bool { saved.isEmpty && deleted.isEmpty }
}

/// What a save wrote: the new revision of every document it changed (objects saved, objects whose
/// inverse relationships it updated, objects it deleted).
public struct ModelSaveResult: Sendable, Hashable {
    /// Document id to its new revision.
    public var revisions: [String: String]
    /// The ids deleted (those named and those a cascade reached).
    public var deleted: Set<String>
    /// The ids changed only to keep an inverse relationship in step, or nullified by a delete.
    public var updatedRelated: Set<String>
}
