public import CloudantBase

/// Checks documents against a model version, listing every way each breaks the Core Data bridge's schema.
///
/// ```swift
/// let problems = DocumentCheck(version: model.current).violations(of: document)
/// ```
public struct DocumentCheck: Sendable {
    /// The version documents must follow.
    public let version: ModelVersion

    /// Prepares a check.
    public init(version: ModelVersion) { self.version = version }

    /// Every violation in one document (with `_id`); empty when it follows the schema. Relationship targets
    /// are not looked up here (see `ModelStore.check()`).
    public func violations(of document: JSONObject) -> [SchemaViolation] {
        let id = document["_id"]?.stringValue
        guard let name = document[IncrementalStore.entityNameKey]?.stringValue else {
            return [SchemaViolation(documentID: id, entity: nil, property: IncrementalStore.entityNameKey, problem: .missingEntityName)]
        }
        guard let entity = version.entity(named: name) else {
            return [SchemaViolation(documentID: id, entity: name, property: IncrementalStore.entityNameKey, problem: .unknownEntity)]
        }
        var found: [SchemaViolation] = []
        func record(_ error: any Error, _ property: String) {
            if let violation = (error as? CloudantError)?.schemaViolation {
                found.append(violation)
            } else {
                found.append(SchemaViolation(documentID: id, entity: name, property: property, problem: .wrongType(expected: "a valid value")))
            }
        }
        if let version = document[IncrementalStore.objectVersionKey] {
            let valid: Bool
            switch version {
            case .string(let text): valid = Int(text) != nil
            case .number(let number): valid = number.int64Value != nil
            default: valid = false
            }
            if !valid {
                found.append(SchemaViolation(documentID: id, entity: name, property: IncrementalStore.objectVersionKey, problem: .malformedObjectVersion))
            }
        }
        for property in entity.properties {
            do {
                switch property.type {
                case .relationToOne:
                    _ = try IncrementalStoreCoding.readToOne(property, in: document, documentID: id, entity: name)
                case .relationToMany:
                    _ = try IncrementalStoreCoding.readToMany(property, in: document, documentID: id, entity: name)
                default:
                    let value = try IncrementalStoreCoding.read(property, in: document, documentID: id, entity: name)
                    if value == nil, !property.optional, AttributeDefaults.value(for: property) == nil {
                        found.append(SchemaViolation(documentID: id, entity: name, property: property.name, problem: .missingValue))
                    }
                }
            } catch {
                record(error, property.name)
            }
        }
        for key in document.keys where !key.hasPrefix("_") && entity.property(named: key) == nil {
            if key.hasPrefix(IncrementalStore.metaPrefix), entity.property(named: String(key.dropFirst(IncrementalStore.metaPrefix.count))) != nil {
                continue
            }
            if [IncrementalStore.entityNameKey, IncrementalStore.identifierKey, IncrementalStore.objectVersionKey].contains(key) { continue }
            found.append(SchemaViolation(documentID: id, entity: name, property: key, problem: .unknownProperty))
        }
        return found
    }
}
