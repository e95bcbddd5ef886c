public import CloudantCore

/// The `CDTISMetaData` document: the one document that describes a database written by the Core Data
/// bridge, exactly as its schema says.
///
/// ```json
/// {"_id": "CDTISMetaData",
///  "metaData": {"NSStoreType": "CDTIncrementalStore", "NSStoreUUID": "…",
///               "NSStoreModelVersionHashes": {"Recipe": "<hex64>", …}},
///  "objectModel": {"Recipe": {"versionHash": "<hex64>",
///                             "properties": {"name": {"typeName": "utf8", "versionHash": "<hex64>"},
///                                            "ingredients": {"typeName": "relation-to-many", "versionHash": "…",
///                                                            "destination": "Ingredient"}}}}}
/// ```
/// `metaData` holds what Core Data stores of its own metadata (the store UUID and type, and the model's
/// version hashes as hex, since JSON has no bytes); `objectModel` describes every entity and property,
/// with `xform` (the transformer) and `destination` where they apply.
public struct IncrementalStoreMetadata: Sendable, Hashable {
    /// `NSStoreUUID`: the database's identity in Core Data object URIs.
    public var storeUUID: String
    /// `NSStoreModelVersionHashes`: entity name to hash.
    public var versionHashes: [String: String]
    /// The `objectModel` member as stored.
    public var objectModel: JSONObject

    /// The metadata of a database written with `version`.
    public init(storeUUID: String, version: ModelVersion) {
        self.storeUUID = storeUUID
        versionHashes = VersionHashes.hashes(of: version)
        var model = JSONObject()
        for entity in version.entities {
            var properties = JSONObject()
            for property in entity.properties {
                var description: JSONObject = [
                    "typeName": .string(property.type.rawValue), "versionHash": .string(VersionHashes.hash(of: property)),
                ]
                if property.type == .xform, let transformer = property.transformer {
                    description["xform"] = .string(transformer)
                }
                if property.isRelationship, let destination = property.destination {
                    description["destination"] = .string(destination)
                }
                properties[property.name] = .object(description)
            }
            model[entity.name] = ["versionHash": .string(VersionHashes.hash(of: entity)), "properties": .object(properties)]
        }
        objectModel = model
    }

    /// Reads a stored metadata document.
    /// - Throws: `CloudantError.Code.schemaViolation` naming `CDTISMetaData` and the member
    ///   when `metaData` or `objectModel` is missing or malformed.
    public init(document: JSONObject) throws {
        func fail(_ member: String) -> CloudantError {
            SchemaViolation(
                documentID: IncrementalStore.metadataDocumentID, entity: nil, property: member, problem: .malformedMetadata(member)
            ).error
        }
        guard let metaData = document["metaData"]?.objectValue else { throw fail("metaData") }
        guard let objectModel = document["objectModel"]?.objectValue else { throw fail("objectModel") }
        storeUUID = metaData["NSStoreUUID"]?.stringValue ?? ""
        var hashes: [String: String] = [:]
        if let stored = metaData["NSStoreModelVersionHashes"]?.objectValue {
            for (entity, hash) in stored.members {
                guard let text = hash.stringValue, Self.isHex64(text) else { throw fail("metaData.NSStoreModelVersionHashes.\(entity)") }
                hashes[entity] = text.lowercased()
            }
        } else {
            for (entity, description) in objectModel.members {
                guard let text = description["versionHash"]?.stringValue, Self.isHex64(text) else {
                    throw fail("objectModel.\(entity).versionHash")
                }
                hashes[entity] = text.lowercased()
            }
        }
        self.objectModel = objectModel
        versionHashes = hashes
    }

    /// The document body (without `_id`/`_rev`).
    public var body: JSONObject {
        let hashes = JSONObject(versionHashes.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        return [
            "metaData": [
                "NSStoreType": .string(IncrementalStore.storeType), "NSStoreUUID": .string(storeUUID),
                "NSStoreModelVersionHashes": .object(hashes),
            ],
            "objectModel": .object(objectModel),
        ]
    }

    /// The version of `model` whose hashes these are, if any.
    public func matchingVersion(in model: ObjectModel) -> ModelVersion? {
        model.versions.last { VersionHashes.hashes(of: $0) == versionHashes }
    }

    static func isHex64(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ("0"..."9").contains(Character(UnicodeScalar($0))) || ("a"..."f").contains(Character(UnicodeScalar($0))) || ("A"..."F").contains(Character(UnicodeScalar($0))) }
    }
}
