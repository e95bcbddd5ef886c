public import CloudantBase

/// One property of an entity: an attribute or a relationship.
///
/// ```swift
/// let servings = PropertyDescription(name: "servings", type: .int16, optional: true, defaultValue: 4)
/// let ingredients = PropertyDescription(
///     name: "ingredients", type: .relationToMany, destination: "Ingredient", inverse: "recipe",
///     deleteRule: .cascade)
/// ```
public struct PropertyDescription: Sendable, Hashable {
    /// The property name, as written in documents.
    public var name: String
    /// The type.
    public var type: PropertyType
    /// Whether an object may lack a value (attributes) or any related object (relationships).
    public var optional: Bool
    /// The value a new object gets, and migrated objects get when the attribute is added (model-file JSON).
    public var defaultValue: JSONValue?
    /// The MIME type of `binary` and `xform` values (`application/octet-stream` when `nil`).
    public var mimeType: String?
    /// The transformer that turns an `xform` value's bytes into an application value (Core Data's
    /// `valueTransformerName`).
    public var transformer: String?
    /// The entity a relationship reaches.
    public var destination: String?
    /// The relationship of `destination` that points back.
    public var inverse: String?
    /// What deleting the object does to the objects this relationship reaches.
    public var deleteRule: DeleteRule
    /// The name the property had in the previous model version (Core Data's renaming identifier).
    public var renamedFrom: String?

    /// Describes a property.
    public init(
        name: String, type: PropertyType, optional: Bool = false, defaultValue: JSONValue? = nil,
        mimeType: String? = nil, transformer: String? = nil, destination: String? = nil, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil
    ) {
        self.name = name
        self.type = type
        self.optional = optional
        self.defaultValue = defaultValue
        self.mimeType = mimeType
        self.transformer = transformer
        self.destination = destination
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.renamedFrom = renamedFrom
    }

    /// Whether this is a relationship.
    public var isRelationship: Bool { type.isRelationship }

    /// The MIME type written with `binary` and `xform` values.
    public var effectiveMIMEType: String { mimeType ?? "application/octet-stream" }
}
