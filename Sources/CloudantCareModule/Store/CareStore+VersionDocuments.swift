public import CloudantCore
internal import Foundation

extension CareStore {
    /// The documents this store would write for `entities`, one per version, without writing them: for
    /// importers that must write versions in the same transaction as documents of their own (a converter's
    /// tombstones of the documents it replaces, say).
    ///
    /// Each document is what ``add(_:importing:)`` stores: `_id` is the version's uuid, the body is the
    /// entity's CareKit JSON with `nextVersionUUIDs` emptied, stamped with this store's current knowledge and
    /// process, and an outcome whose task version is stored carries its event's dates. Write them with
    /// `DocumentStore.bulkDocs`, then call ``incrementClock()`` once, so peers receive them as news.
    ///
    /// ```swift
    /// var documents = try await care.versionDocuments(for: imported)
    /// documents[0]["importedFrom"] = "clinic-export-2026"
    /// let incoming = try documents.map { try IncomingDocument($0) }
/// _ = try await care.store.bulkDocs(parsed: incoming, allOrNothing: true)
    /// try await care.incrementClock()
    /// ```
    /// - Throws: `CloudantError` when the store's knowledge cannot be read or an entity does not encode as a
    ///   JSON object.
    public func versionDocuments<Entity: CareStorable>(for entities: [Entity]) async throws -> [JSONObject] {
        let state = try await clock()
        let events = try await outcomeEvents(entities.compactMap { $0 as? Outcome })
        return try entities.map { entity in
            try CareDocument.make(entity, knowledge: state.vector, author: state.process, event: events[entity.uuid])
        }
    }
}
