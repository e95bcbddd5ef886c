/// A to-one relationship of a generated entity: the destination object's document id, typed by its entity.
///
/// ```swift
/// var leek = Ingredient(name: "Leek")
/// leek.recipe = ToOne(soup)          // or ToOne(id: soup.id); nil for none
/// let recipe = try await models.fetch(\Ingredient.recipe, of: [leek])[leek.id]
/// ```
public struct ToOne<Destination: ModelEntity>: Sendable, Hashable, ExpressibleByNilLiteral {
    /// The destination's document id, or `nil`.
    public var id: String?

    /// A relationship to the object with this id (`nil` for none).
    public init(id: String?) { self.id = id }

    /// A relationship to `object`.
    public init(_ object: Destination) { id = object.id }

    /// No related object.
    public init(nilLiteral: ()) { id = nil }
}

/// A to-many relationship of a generated entity: the destination objects' document ids, in order.
///
/// ```swift
/// soup.ingredients = ToMany([leek, potato])
/// let ingredients = try await models.fetch(\Recipe.ingredients, of: [soup])[soup.id] ?? []
/// ```
public struct ToMany<Destination: ModelEntity>: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The destination ids.
    public var ids: [String]

    /// A relationship to the objects with these ids.
    public init(ids: [String]) { self.ids = ids }

    /// A relationship to these objects.
    public init(_ objects: [Destination]) { ids = objects.map(\.id) }

    /// A relationship to the objects with these ids.
    public init(arrayLiteral ids: String...) { self.ids = ids }

    /// Adds an object (once).
    public mutating func insert(_ object: Destination) {
        if !ids.contains(object.id) { ids.append(object.id) }
    }

    /// Removes an object.
    public mutating func remove(_ object: Destination) {
        ids.removeAll { $0 == object.id }
    }

    /// Whether the relationship names no object.
    public var isEmpty: Bool { ids.isEmpty }
}
