internal import CloudantCore
internal import Foundation

/// How one care version is stored: one document per version, `_id` = the version's uuid, so importing the
/// same version twice (or receiving it from two peers) writes nothing new.
///
/// The body is the entity's CareKit JSON plus store members: the kind name, the knowledge stamp the version
/// was written or received with, the process that authored it locally, and for outcomes the event's
/// start, end and a key of its length class and start (so outcomes can be filtered by event date on a
/// two-sided range, see ``EventSpan``). Version documents are never edited:
/// `nextVersionUUIDs` is stored empty and rebuilt from the other versions' `previousVersionUUIDs` on read,
/// so two devices that both extend a version write two new documents instead of a CouchDB conflict.
enum CareDocument {
    static let kindField = "entityType"
    static let schemaVersionField = "entitySchemaVersion"
    static let knowledgeField = "careKnowledge"
    static let authorField = "careAuthor"
    /// When a wall-clock server first stored the version, by its own clock (see ``CareSyncMode/wallClock``).
    static let serverTimeField = "careServerTime"
    static let eventStartField = "startDate"
    static let eventEndField = "endDate"

    static func id(for uuid: UUID) -> String { uuid.uuidString }

    static func make<Entity: CareStorable>(
        _ entity: Entity, knowledge: KnowledgeVector, author: UUID?, event: ScheduleEvent?, serverTime: Date? = nil
    ) throws -> JSONObject {
        var stored = entity
        stored.nextVersionUUIDs = []
        guard case .object(let members) = try JSONValue(encoding: stored) else {
            throw CloudantError(.invalidInput, "A care entity must encode as a JSON object.")
        }
        var document: JSONObject = ["_id": .string(id(for: entity.uuid))]
        for (key, value) in members.members { document[key] = value }
        document[kindField] = .string(Entity.careKindName)
        document[schemaVersionField] = 1
        document[knowledgeField] = try JSONValue(encoding: knowledge)
        if let author { document[authorField] = .string(author.uuidString) }
        if let serverTime { document[serverTimeField] = try JSONValue(encoding: serverTime) }
        if let event {
            document[eventStartField] = try JSONValue(encoding: event.start)
            document[eventEndField] = try JSONValue(encoding: event.end)
            document[EventSpan.field] = try EventSpan.key(of: event)
        }
        return document
    }

    static func entity<Entity: CareStorable>(_ type: Entity.Type, from document: JSONObject) throws -> Entity {
        // The store's members (`_id`, `_rev`, …) are not the entity's; one pass, as most members are kept.
        let body = JSONObject(
            uniqueMembers: document.members.filter { $0.key.utf8.first != UInt8(ascii: "_") || !$0.key.hasPrefix("_") })
        do {
            return try JSONValue.object(body).decode(Entity.self)
        } catch let error as CloudantError {
            throw error.adding {
                $0.documentID = document["_id"]?.stringValue
                $0.kind = Entity.careKindName
            }
        }
    }

    static func knowledge(of document: JSONObject) -> KnowledgeVector {
        (try? document[knowledgeField]?.decode(KnowledgeVector.self)) ?? KnowledgeVector()
    }

    static func author(of document: JSONObject) -> UUID? {
        document[authorField]?.stringValue.flatMap(UUID.init(uuidString:))
    }

    static func kind(of document: JSONObject) -> String? { document[kindField]?.stringValue }

    static func serverTime(of document: JSONObject) -> Date? { try? document[serverTimeField]?.decode(Date.self) }
}
