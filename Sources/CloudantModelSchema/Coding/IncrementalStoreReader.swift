public import CloudantBase
public import Foundation

/// Reads one object's document in the Core Data bridge's layout, property by property: what generated
/// entity types call from `init(jsonObject:)`.
///
/// A required attribute the document lacks takes the model's default (as a lightweight migration would
/// have written it); without one it is a ``SchemaViolation``. Members the entity does not have are ignored.
///
/// ```swift
/// let reader = try IncrementalStoreReader(body, entity: Recipe.entity)
/// let name = try reader.string("name")
/// let servings = try reader.int16IfPresent("servings")
/// ```
public struct IncrementalStoreReader {
    /// The document body.
    public let body: JSONObject
    /// The entity read.
    public let entity: EntityDescription
    /// The document id (`id`, or `_id`).
    public let id: String
    /// The revision (`revId`, or `_rev`).
    public let revId: String?
    /// `CDTISObjectVersion` (1 when absent).
    public let objectVersion: Int
    /// `CDTISIdentifier`, the Core Data object URI.
    public let objectIdentifier: String?

    /// Starts reading `body` as an object of `entity`.
    /// - Throws: `CloudantError.Code.schemaViolation` when `CDTISEntityName` is missing or names
    ///   another entity, or `CDTISObjectVersion` is not an integer.
    public init(_ body: JSONObject, entity: EntityDescription) throws {
        self.body = body
        self.entity = entity
        id = body["id"]?.stringValue ?? body["_id"]?.stringValue ?? ""
        revId = body["revId"]?.stringValue ?? body["_rev"]?.stringValue
        let documentID = id.isEmpty ? nil : id
        guard let name = body[IncrementalStore.entityNameKey]?.stringValue else {
            throw SchemaViolation(documentID: documentID, entity: entity.name, property: IncrementalStore.entityNameKey, problem: .missingEntityName).error
        }
        guard name == entity.name else {
            throw SchemaViolation(documentID: documentID, entity: entity.name, property: IncrementalStore.entityNameKey, problem: .otherEntity(name)).error
        }
        switch body[IncrementalStore.objectVersionKey] {
        case nil, .null: objectVersion = 1
        case .string(let text):
            guard let version = Int(text) else {
                throw SchemaViolation(documentID: documentID, entity: entity.name, property: IncrementalStore.objectVersionKey, problem: .malformedObjectVersion).error
            }
            objectVersion = version
        case .number(let number):
            guard let version = number.int64Value.flatMap({ Int(exactly: $0) }) else {
                throw SchemaViolation(documentID: documentID, entity: entity.name, property: IncrementalStore.objectVersionKey, problem: .malformedObjectVersion).error
            }
            objectVersion = version
        default:
            throw SchemaViolation(documentID: documentID, entity: entity.name, property: IncrementalStore.objectVersionKey, problem: .malformedObjectVersion).error
        }
        objectIdentifier = body[IncrementalStore.identifierKey]?.stringValue
    }

    private func property(_ name: String) throws -> PropertyDescription {
        guard let property = entity.property(named: name) else {
            throw SchemaViolation(documentID: id, entity: entity.name, property: name, problem: .unknownProperty).error
        }
        return property
    }

    /// The value of attribute `name`, its default when absent, or `nil`.
    public func valueIfPresent(_ name: String) throws -> AttributeValue? {
        let property = try property(name)
        return try IncrementalStoreCoding.read(property, in: body, documentID: id, entity: entity.name)
            ?? AttributeDefaults.value(for: property)
    }

    /// The value of a required attribute.
    /// - Throws: `CloudantError.Code.schemaViolation` when it is absent and has no default.
    public func value(_ name: String) throws -> AttributeValue {
        guard let value = try valueIfPresent(name) else {
            throw SchemaViolation(documentID: id, entity: entity.name, property: name, problem: .missingValue).error
        }
        return value
    }

    private func mismatch(_ name: String, _ expected: String) -> CloudantError {
        SchemaViolation(documentID: id, entity: entity.name, property: name, problem: .wrongType(expected: expected)).error
    }

    /// A `utf8` attribute.
    public func string(_ name: String) throws -> String {
        guard case .utf8(let value) = try value(name) else { throw mismatch(name, "utf8") }
        return value
    }
    /// An optional `utf8` attribute.
    public func stringIfPresent(_ name: String) throws -> String? {
        try valueIfPresent(name).map { value in
            guard case .utf8(let text) = value else { throw mismatch(name, "utf8") }
            return text
        }
    }
    /// An `id` attribute (a Core Data object URI).
    public func objectID(_ name: String) throws -> String {
        guard case .objectID(let value) = try value(name) else { throw mismatch(name, "id") }
        return value
    }
    /// An optional `id` attribute.
    public func objectIDIfPresent(_ name: String) throws -> String? {
        try valueIfPresent(name).map { value in
            guard case .objectID(let text) = value else { throw mismatch(name, "id") }
            return text
        }
    }
    /// A `bool` attribute.
    public func bool(_ name: String) throws -> Bool {
        guard case .bool(let value) = try value(name) else { throw mismatch(name, "bool") }
        return value
    }
    /// An optional `bool` attribute.
    public func boolIfPresent(_ name: String) throws -> Bool? {
        try valueIfPresent(name).map { value in
            guard case .bool(let flag) = value else { throw mismatch(name, "bool") }
            return flag
        }
    }
    /// A `date1970` attribute.
    public func date(_ name: String) throws -> Date {
        guard case .date(let value) = try value(name) else { throw mismatch(name, "date1970") }
        return value
    }
    /// An optional `date1970` attribute.
    public func dateIfPresent(_ name: String) throws -> Date? {
        try valueIfPresent(name).map { value in
            guard case .date(let date) = value else { throw mismatch(name, "date1970") }
            return date
        }
    }
    /// An `int16` attribute.
    public func int16(_ name: String) throws -> Int16 {
        guard case .int16(let value) = try value(name) else { throw mismatch(name, "int16") }
        return value
    }
    /// An optional `int16` attribute.
    public func int16IfPresent(_ name: String) throws -> Int16? {
        try valueIfPresent(name).map { value in
            guard case .int16(let integer) = value else { throw mismatch(name, "int16") }
            return integer
        }
    }
    /// An `int32` attribute.
    public func int32(_ name: String) throws -> Int32 {
        guard case .int32(let value) = try value(name) else { throw mismatch(name, "int32") }
        return value
    }
    /// An optional `int32` attribute.
    public func int32IfPresent(_ name: String) throws -> Int32? {
        try valueIfPresent(name).map { value in
            guard case .int32(let integer) = value else { throw mismatch(name, "int32") }
            return integer
        }
    }
    /// An `int64` attribute.
    public func int64(_ name: String) throws -> Int64 {
        guard case .int64(let value) = try value(name) else { throw mismatch(name, "int64") }
        return value
    }
    /// An optional `int64` attribute.
    public func int64IfPresent(_ name: String) throws -> Int64? {
        try valueIfPresent(name).map { value in
            guard case .int64(let integer) = value else { throw mismatch(name, "int64") }
            return integer
        }
    }
    /// A `double` attribute, bit-exact from its image.
    public func double(_ name: String) throws -> Double {
        guard case .double(let value) = try value(name) else { throw mismatch(name, "double") }
        return value
    }
    /// An optional `double` attribute.
    public func doubleIfPresent(_ name: String) throws -> Double? {
        try valueIfPresent(name).map { value in
            guard case .double(let double) = value else { throw mismatch(name, "double") }
            return double
        }
    }
    /// A `float` attribute, bit-exact from its image.
    public func float(_ name: String) throws -> Float {
        guard case .float(let value) = try value(name) else { throw mismatch(name, "float") }
        return value
    }
    /// An optional `float` attribute.
    public func floatIfPresent(_ name: String) throws -> Float? {
        try valueIfPresent(name).map { value in
            guard case .float(let float) = value else { throw mismatch(name, "float") }
            return float
        }
    }
    /// A `decimal` attribute.
    public func decimal(_ name: String) throws -> Decimal {
        guard case .decimal(let value) = try value(name) else { throw mismatch(name, "decimal") }
        return value
    }
    /// An optional `decimal` attribute.
    public func decimalIfPresent(_ name: String) throws -> Decimal? {
        try valueIfPresent(name).map { value in
            guard case .decimal(let decimal) = value else { throw mismatch(name, "decimal") }
            return decimal
        }
    }
    /// A `binary` attribute's bytes.
    public func data(_ name: String) throws -> Data {
        guard case .binary(let value, _) = try value(name) else { throw mismatch(name, "binary") }
        return value
    }
    /// An optional `binary` attribute's bytes.
    public func dataIfPresent(_ name: String) throws -> Data? {
        try valueIfPresent(name).map { value in
            guard case .binary(let data, _) = value else { throw mismatch(name, "binary") }
            return data
        }
    }
    /// An `xform` attribute.
    public func transformable(_ name: String) throws -> TransformableValue {
        guard case .transformable(let value) = try value(name) else { throw mismatch(name, "xform") }
        return value
    }
    /// An optional `xform` attribute.
    public func transformableIfPresent(_ name: String) throws -> TransformableValue? {
        try valueIfPresent(name).map { value in
            guard case .transformable(let transformable) = value else { throw mismatch(name, "xform") }
            return transformable
        }
    }
    /// A to-one relationship's destination id.
    public func toOne(_ name: String) throws -> String? {
        try IncrementalStoreCoding.readToOne(try property(name), in: body, documentID: id, entity: entity.name)
    }
    /// A to-many relationship's destination ids.
    public func toMany(_ name: String) throws -> [String] {
        try IncrementalStoreCoding.readToMany(try property(name), in: body, documentID: id, entity: entity.name)
    }
}

/// Writes one object's document in the Core Data bridge's layout: what generated entity types call from
/// `jsonObject()`.
///
/// ```swift
/// var writer = IncrementalStoreWriter(entity: Recipe.entity, objectVersion: 1, objectIdentifier: nil)
/// writer.set("name", .utf8("Soup"))
/// writer.setToMany("ingredients", ["ingredient-1"])
/// let body = writer.body
/// ```
public struct IncrementalStoreWriter {
    /// The body written so far.
    public private(set) var body: JSONObject
    /// The entity written.
    public let entity: EntityDescription

    /// Starts a body with `CDTISEntityName`, `CDTISObjectVersion` and, when known, `CDTISIdentifier`.
    public init(entity: EntityDescription, objectVersion: Int, objectIdentifier: String?) {
        self.entity = entity
        var body: JSONObject = [
            IncrementalStore.entityNameKey: .string(entity.name),
            IncrementalStore.objectVersionKey: .string(String(objectVersion)),
        ]
        if let objectIdentifier { body[IncrementalStore.identifierKey] = .string(objectIdentifier) }
        self.body = body
    }

    /// Writes attribute `name` (nothing for `nil`, as the bridge skipped nil attributes).
    public mutating func set(_ name: String, _ value: AttributeValue?) {
        guard let property = entity.property(named: name) else { return }
        IncrementalStoreCoding.write(value, for: property, into: &body)
    }

    /// Writes a to-one relationship.
    public mutating func setToOne(_ name: String, _ id: String?) {
        guard let property = entity.property(named: name) else { return }
        IncrementalStoreCoding.writeToOne(id, for: property, into: &body)
    }

    /// Writes a to-many relationship.
    public mutating func setToMany(_ name: String, _ ids: [String]) {
        guard let property = entity.property(named: name) else { return }
        IncrementalStoreCoding.writeToMany(ids, for: property, into: &body)
    }
}
