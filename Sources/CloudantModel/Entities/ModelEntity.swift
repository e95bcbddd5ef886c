public import CloudantCore
public import CloudantModelSchema
internal import Foundation

/// A value type generated from an object model's entity: `Codable`, `Sendable`, `Hashable`, identified by
/// its document id, and stored in the Core Data bridge's layout (`CDTISEntityName`, `CDTISMeta_` members).
///
/// The build plugin writes the conformances; the store's typed API (`add`, `update`, `get`), the query
/// builder (`collection(Recipe.self)`) and ``ModelStore`` all accept these types.
///
/// ```swift
/// var soup = Recipe(name: "Soup", servings: 4)
/// soup = try await models.save([soup])[0]
/// ```
public protocol ModelEntity: CloudantEntity, JSONObjectRepresentable, Hashable where ID == String {
    /// The entity, as in the current version of the model.
    static var entity: EntityDescription { get }
    /// `CDTISObjectVersion`: 1 for a new object, bumped by every save.
    var objectVersion: Int { get set }
    /// `CDTISIdentifier`: the Core Data object URI, filled in when the object is first saved.
    var objectIdentifier: String? { get set }
}

extension ModelEntity {
    /// The entity kind to register with a store's `EntityRegistry` (generated plugins do).
    public static var entityKind: EntityKind<Self> {
        EntityKind(Self.self, name: entity.name, indexes: entity.indexDefinitions, format: .incrementalStore)
    }

    /// Reads the value from any `Decoder` holding the document body (generated `init(from:)` calls this).
    public init(modelFrom decoder: any Decoder) throws {
        guard case .object(let body) = try JSONValue(from: decoder) else {
            throw SchemaViolation(documentID: nil, entity: Self.entity.name, property: nil, problem: .wrongType(expected: "an object")).error
        }
        try self.init(jsonObject: body)
    }

    /// Writes the document body to any `Encoder`, with `id` and `revId` so the value round-trips (generated
    /// `encode(to:)` calls this).
    public func encodeModel(to encoder: any Encoder) throws {
        var body = try jsonObject()
        body["id"] = .string(id)
        if let revId { body["revId"] = .string(revId) }
        try JSONValue.object(body).encode(to: encoder)
    }
}

/// Document ids for new objects, as the Core Data bridge made them: `CDTIS-<Entity>-<UUID>`.
public enum ModelObjectID {
    /// A new id for an object of `entity` (the live default of generated initialisers; pass your own id
    /// where tests need determinism).
    public static func make(entity: String) -> String {
        "\(IncrementalStore.reservedPrefix)-\(entity)-\(UUID().uuidString)"
    }
}
