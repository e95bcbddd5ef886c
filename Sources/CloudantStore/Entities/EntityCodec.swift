internal import CloudantCore

/// Turns entities into document bodies and back, applying the kind's validation and schema upgrades.
struct EntityCodec<Entity: CloudantEntity> where Entity.ID: CustomStringConvertible {
    let kind: EntityKind<Entity>

    /// The document an entity is stored as: `_id`, `_rev` (when it has one), its members (without `revId`),
    /// `entityType` and `entitySchemaVersion`.
    func document(for entity: Entity, index: Int, includeRev: Bool = true) throws -> JSONObject {
        let id = entity.id.description
        do {
            guard !id.isEmpty, !id.hasPrefix("_") else {
                throw CloudantError(
                    .invalidValue, "An entity id must be non-empty and must not start with '_' (reserved by CouchDB).",
                    context: .init(field: "id"))
            }
            try kind.validate(entity)
            guard case .object(let members) = try JSONValue(encoding: entity) else {
                throw CloudantError(.invalidValue, "An entity must encode as a JSON object (a keyed container).")
            }
            var document: JSONObject = ["_id": .string(id)]
            if includeRev, let rev = entity.revId { document["_rev"] = .string(rev) }
            for (key, value) in members.members where key != "revId" { document[key] = value }
            document[EntityField.kind] = .string(kind.name)
            document[EntityField.schemaVersion] = .number(JSONNumber(kind.schemaVersion))
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
    func entity(from document: JSONObject) throws -> Entity {
        var body = document
        let id = body.removeValue(forKey: "_id")?.stringValue
        let rev = body.removeValue(forKey: "_rev")
        for key in body.keys where key.hasPrefix("_") { body.removeValue(forKey: key) }
        let stored = body[EntityField.schemaVersion]?.numberValue?.int64Value.map { Int($0) } ?? 1
        do {
            if stored < kind.schemaVersion { try kind.upgrade(&body, stored) }
            body.removeValue(forKey: EntityField.kind)
            body.removeValue(forKey: EntityField.schemaVersion)
            if let rev { body["revId"] = rev }
            // Documents written elsewhere (a CouchDB peer, the original store) may carry the id only as `_id`.
            if body["id"] == nil, let id { body["id"] = .string(id) }
            var entity = try JSONValue.object(body).decode(Entity.self)
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
