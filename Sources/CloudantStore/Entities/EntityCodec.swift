package import CloudantCore

/// Turns entities into document bodies and back, applying the kind's validation and schema upgrades.
package struct EntityCodec<Entity: CloudantEntity> where Entity.ID: CustomStringConvertible {
    package let kind: EntityKind<Entity>

    package init(kind: EntityKind<Entity>) {
        self.kind = kind
    }

    /// The document an entity is stored as: `_id`, `_rev` (when it has one), its members (without `revId`),
    /// and the kind's name and schema version in the members its `EntityDocumentFormat` names (the
    /// incremental-store layout has the entity write its own `CDTISEntityName`; it is set here too).
    package func document(for entity: Entity, index: Int, includeRev: Bool = true) throws -> JSONObject {
        let id = entity.id.description
        do {
            guard !id.isEmpty, !id.hasPrefix("_") else {
                throw CloudantError(
                    .invalidInput, "An entity id must be non-empty and must not start with '_' (reserved by CouchDB).",
                    context: .init(field: "id"))
            }
            try kind.validate(entity)
            let members: JSONObject
            if let direct = entity as? any JSONObjectRepresentable {
                members = try direct.jsonObject()
            } else {
                guard case .object(let encoded) = try JSONValue(encoding: entity) else {
                    throw CloudantError(.invalidInput, "An entity must encode as a JSON object (a keyed container).")
                }
                members = encoded
            }
            var document: JSONObject = ["_id": .string(id)]
            if includeRev, let rev = entity.revId { document["_rev"] = .string(rev) }
            for (key, value) in members.members where key != "revId" { document[key] = value }
            document[kind.format.kindField] = .string(kind.name)
            if let field = kind.format.schemaVersionField {
                document[field] = .number(JSONNumber(kind.schemaVersion))
            }
            return document
        } catch let error as CloudantError {
            throw error.adding {
                $0.documentID = $0.documentID ?? id
                $0.kind = kind.name
                $0.itemIndex = index
            }
        }
    }

    /// Decodes a stored document (with `_id` and `_rev`) into an entity, upgrading older schema versions.
    package func entity(from document: JSONObject) throws -> Entity {
        var body = document
        let id = body.removeValue(forKey: "_id")?.stringValue
        let rev = body.removeValue(forKey: "_rev")
        // The Core Data bridge's layout may keep binary values as attachments, which its entities read.
        let keep = kind.format == .incrementalStore ? "_attachments" : nil
        for key in body.keys where key.hasPrefix("_") && key != keep { body.removeValue(forKey: key) }
        let versionField = kind.format.schemaVersionField
        let stored = versionField.flatMap { body[$0]?.numberValue?.int64Value.map { Int($0) } } ?? 1
        do {
            if stored < kind.schemaVersion { try kind.upgrade(&body, stored) }
            if kind.format == .standard {
                body.removeValue(forKey: EntityField.kind)
                body.removeValue(forKey: EntityField.schemaVersion)
            }
            if let rev { body["revId"] = rev }
            // Documents written elsewhere (a CouchDB peer, the original store) may carry the id only as `_id`.
            if body["id"] == nil, let id { body["id"] = .string(id) }
            var entity: Entity
            if let direct = Entity.self as? any JSONObjectRepresentable.Type {
                guard let decoded = try direct.init(jsonObject: body) as? Entity else {
                    throw CloudantError(.invalidInput, "\(Entity.self) decoded as another type.")
                }
                entity = decoded
            } else {
                entity = try JSONValue.object(body).decode(Entity.self)
            }
            entity.revId = rev?.stringValue
            return entity
        } catch let error as CloudantError {
            throw error.adding {
                $0.documentID = id
                $0.revision = rev?.stringValue
                $0.kind = kind.name
            }
        }
    }
}
