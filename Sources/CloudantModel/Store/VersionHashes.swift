internal import CloudantCore
internal import Crypto

/// Version hashes: 64 hex characters (SHA-256), the `hex64` of the `CDTISMetaData` schema.
///
/// Core Data derives its hashes from what decides whether stored data still fits a model; so do these:
/// - a property's hash covers its name, type name, optionality, and for a relationship its destination,
///   inverse and delete rule, for an `xform` its transformer: the SHA-256 of the canonical JSON
///   `{"destination","inverse","deleteRule","name","optional","typeName","xform"}` (members present only when set);
/// - an entity's hash is the SHA-256 of the canonical JSON `{"name": entity, "properties": {name: hash}}`.
///
/// Defaults, MIME types, indexes and renames do not change a hash: they change no stored document.
public enum VersionHashes {
    /// The hash of one property.
    public static func hash(of property: PropertyDescription) -> String {
        var fields: JSONObject = [
            "name": .string(property.name), "typeName": .string(property.type.rawValue), "optional": .bool(property.optional),
        ]
        if property.isRelationship {
            if let destination = property.destination { fields["destination"] = .string(destination) }
            if let inverse = property.inverse { fields["inverse"] = .string(inverse) }
            fields["deleteRule"] = .string(property.deleteRule.rawValue)
        }
        if property.type == .xform, let transformer = property.transformer { fields["xform"] = .string(transformer) }
        return sha256(.object(fields))
    }

    /// The hash of one entity.
    public static func hash(of entity: EntityDescription) -> String {
        let properties = JSONObject(entity.properties.map { ($0.name, JSONValue.string(hash(of: $0))) })
        return sha256(["name": .string(entity.name), "properties": .object(properties)])
    }

    /// Every entity's hash in a version, keyed by entity name (`NSStoreModelVersionHashes`).
    public static func hashes(of version: ModelVersion) -> [String: String] {
        Dictionary(version.entities.map { ($0.name, hash(of: $0)) }, uniquingKeysWith: { first, _ in first })
    }

    static func sha256(_ value: JSONValue) -> String {
        SHA256.hash(data: value.canonicalJSONBytes()).map { byte in
            let hex = Array("0123456789abcdef")
            return String([hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }.joined()
    }
}
