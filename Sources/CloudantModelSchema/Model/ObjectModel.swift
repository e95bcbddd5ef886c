/// An object model: named entities with attributes and relationships, in one or more versions.
///
/// Read one from a model file with ``ObjectModel/init(parsing:)-(String)`` (the format is in the CloudantModel
/// article); the types the build plugin generates carry theirs as ``ObjectModel`` literals.
///
/// ```swift
/// let model = try ObjectModel(parsing: try String(contentsOfFile: "Recipes.cloudantmodel.json", encoding: .utf8))
/// model.current.entity(named: "Recipe")?.relationships.map(\.name)   // ["ingredients"]
/// ```
public struct ObjectModel: Sendable, Hashable {
    /// The model-file format version this package reads and writes.
    public static let formatVersion = 1

    /// The model's name.
    public let name: String
    /// Every version, oldest first; the last one is ``current``.
    public let versions: [ModelVersion]
    /// The version new objects are written with.
    public let current: ModelVersion

    /// A model from already-validated parts: what generated code uses. Prefer ``init(parsing:)-(String)``, which
    /// checks every rule of the format.
    /// - Precondition: `versions` is not empty (the last one is the current version).
    public init(validatedName name: String, versions: [ModelVersion], current: ModelVersion) {
        self.name = name
        self.versions = versions
        self.current = current
    }

    /// The version numbered `number`, if the model has it.
    public func version(_ number: Int) -> ModelVersion? {
        versions.first { $0.version == number }
    }
}

/// One version of an object model.
public struct ModelVersion: Sendable, Hashable {
    /// The version number (1, 2, …).
    public let version: Int
    /// The entities, in the model file's order.
    public let entities: [EntityDescription]

    /// Describes a version.
    public init(version: Int, entities: [EntityDescription]) {
        self.version = version
        self.entities = entities
    }

    /// The entity named `name`, if any.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }
}
