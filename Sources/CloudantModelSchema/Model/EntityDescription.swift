internal import CloudantBase

/// An entity of an object model: its properties and the indexes queries on it need.
///
/// ```swift
/// let recipe = EntityDescription(name: "Recipe", properties: [
///     PropertyDescription(name: "name", type: .utf8),
///     PropertyDescription(name: "ingredients", type: .relationToMany, destination: "Ingredient", inverse: "recipe"),
/// ], indexes: [ModelIndex(name: "recipe-name", fields: ["name"])])
/// ```
public struct EntityDescription: Sendable, Hashable {
    /// The entity name, written into each object's `CDTISEntityName`.
    public let name: String
    /// The properties, in the model file's order.
    public let properties: [PropertyDescription]
    /// The indexes queries on this entity need.
    public let indexes: [ModelIndex]
    private let positions: [String: Int]

    /// Describes an entity.
    public init(name: String, properties: [PropertyDescription], indexes: [ModelIndex] = []) {
        self.name = name
        self.properties = properties
        self.indexes = indexes
        var positions: [String: Int] = [:]
        for (index, property) in properties.enumerated() where positions[property.name] == nil {
            positions[property.name] = index
        }
        self.positions = positions
    }

    /// The property named `name`, if any.
    public func property(named name: String) -> PropertyDescription? {
        positions[name].map { properties[$0] }
    }

    /// The attributes, in order.
    public var attributes: [PropertyDescription] { properties.filter { !$0.isRelationship } }

    /// The relationships, in order.
    public var relationships: [PropertyDescription] { properties.filter(\.isRelationship) }
}

/// An index an entity declares: Cloudant Query fields, ascending.
public struct ModelIndex: Sendable, Hashable {
    /// The index name (unique within the model).
    public var name: String
    /// The attribute names, most significant first.
    public var fields: [String]

    /// Describes an index.
    public init(name: String, fields: [String]) {
        self.name = name
        self.fields = fields
    }
}
