internal import CloudantCore
internal import CloudantModelSchema
internal import CloudantStore

extension ModelStore {
    /// Inserts or updates objects of one entity in one transaction, keeping inverse relationships in step.
    ///
    /// ```swift
    /// let saved = try await models.save([Recipe(name: "Soup")])
    /// saved[0].revId   // "1-…"; saved[0].objectVersion == 1
    /// ```
    /// - Returns: the objects as stored: new `revId`, bumped `objectVersion`, `objectIdentifier`, and
    ///   relationships as inverse maintenance left them.
    /// - Throws: `CloudantError` `.conflict` naming an object whose `revId` is stale (or a new
    ///   object whose id exists); nothing is written.
    @discardableResult
    public func save<Entity: ModelEntity>(_ objects: [Entity]) async throws -> [Entity] {
        var changes = ModelChanges()
        for object in objects { try changes.save(object) }
        let (_, bodies) = try await apply(changes)
        return try objects.map { object in
            guard let body = bodies[object.id] else { return object }
            return try Entity(jsonObject: body)
        }
    }

    /// Deletes objects of one entity in one transaction, applying every delete rule: `cascade` deletes the
    /// related objects too, `nullify` removes the deleted objects from their inverse relationships, `deny`
    /// refuses the whole delete while a related object would survive.
    ///
    /// ```swift
    /// try await models.delete([soup])   // its ingredients go too when the rule is cascade
    /// ```
    /// - Throws: `CloudantError` `CloudantError.Code.deleteDenied` naming the
    ///   object and the relationship; `.conflict` for a stale `revId`. Nothing is written then.
    @discardableResult
    public func delete<Entity: ModelEntity>(_ objects: [Entity]) async throws -> ModelSaveResult {
        var changes = ModelChanges()
        for object in objects { changes.delete(object) }
        return try await save(changes)
    }

    /// Applies inserts, updates and deletes of any entities in one transaction (see ``save(_:)-(_)`` and
    /// ``delete(_:)``).
    @discardableResult
    public func save(_ changes: ModelChanges) async throws -> ModelSaveResult {
        try await apply(changes).0
    }

    /// Plans and writes; retries when a document it changed only for an inverse moved meanwhile.
    func apply(_ changes: ModelChanges) async throws -> (ModelSaveResult, [String: JSONObject]) {
        for saved in changes.saved where version.entity(named: saved.entity.name) == nil {
            throw CloudantError(
                .unknownEntityType, "'\(saved.entity.name)' is not an entity of the model's current version.",
                context: .init(documentID: saved.id, kind: saved.entity.name))
        }
        let named = Set(changes.saved.map(\.id) + changes.deleted.map(\.id))
        var attempt = 0
        while true {
            attempt += 1
            let plan = try await plan(changes)
            do {
                let results = try await store.writeAtomically(plan.writes)
                var revisions: [String: String] = [:]
                var bodies: [String: JSONObject] = [:]
                for (write, result) in zip(plan.writes, results) {
                    revisions[result.id] = result.rev
                    if write["_deleted"] == nil {
                        var body = write
                        body["_rev"] = .string(result.rev)
                        bodies[result.id] = body
                    }
                }
                return (
                    ModelSaveResult(revisions: revisions, deleted: plan.deleted, updatedRelated: plan.related), bodies
                )
            } catch let error as CloudantError where error.code == .conflict {
                // Someone changed a related object between reading and writing: plan again. A conflict on an
                // object the caller named is theirs to resolve.
                if attempt >= 3 || error.context.documentID.map(named.contains) ?? true { throw error }
            }
        }
    }

    struct Plan {
        var writes: [JSONObject]
        var deleted: Set<String>
        var related: Set<String>
    }

    func plan(_ changes: ModelChanges) async throws -> Plan {
        var graph = ObjectGraph(version: version)
        let namedIDs = Set(changes.saved.map(\.id) + changes.deleted.map(\.id))
        let stored = try await load(namedIDs)
        graph.loaded(stored, asked: namedIDs)

        // Deletes first: the set a cascade reaches, then deny, then nullify.
        var deleting: [String: EntityDescription] = [:]
        var queue = changes.deleted.map { ($0.id, $0.entity) }
        for deleted in changes.deleted where stored[deleted.id] == nil {
            throw CloudantError(.notFound, "missing", context: .init(documentID: deleted.id, kind: deleted.entity.name))
        }
        while !queue.isEmpty {
            let batch = queue
            queue = []
            let need = Set(batch.map(\.0)).subtracting(graph.documents.keys).subtracting(graph.absent)
            graph.loaded(try await load(need), asked: need)
            for (id, _) in batch where deleting[id] == nil {
                guard let document = graph.documents[id], let entity = graph.entity(of: document) else { continue }
                deleting[id] = entity
                for (relationship, targets) in ObjectGraph.targets(of: document, entity: entity, id: id)
                where relationship.deleteRule == .cascade {
                    for target in targets where deleting[target] == nil {
                        queue.append((target, entity))
                    }
                }
            }
        }
        graph.deleting = Set(deleting.keys)
        for (id, entity) in deleting.sorted(by: { $0.key < $1.key }) {
            guard let document = graph.documents[id] else { continue }
            for (relationship, targets) in ObjectGraph.targets(of: document, entity: entity, id: id) {
                let survivors = targets.filter { deleting[$0] == nil }
                if relationship.deleteRule == .deny, let survivor = survivors.first {
                    throw CloudantError(
                        .deleteDenied,
                        "\(entity.name) \(id) cannot be deleted: its relationship '\(relationship.name)' still names "
                            + "\(survivor) and the delete rule is deny. Delete or detach the related objects first.",
                        context: .init(documentID: id, kind: entity.name, field: relationship.name))
                }
                guard let inverse = relationship.inverse else { continue }
                for target in survivors {
                    graph.pending.append(.remove(document: target, relationship: inverse, target: id))
                }
            }
        }

        // Saves: the new bodies replace the stored ones; inverse edits follow.
        var savedBodies: [String: JSONObject] = [:]
        for saved in changes.saved {
            if graph.deleting.contains(saved.id) { continue }
            let old = stored[saved.id]
            var body = saved.body
            if let attachments = old?["_attachments"] { body["_attachments"] = attachments }
            graph.documents[saved.id] = body
            graph.absent.remove(saved.id)
            savedBodies[saved.id] = body
            graph.relationshipsChanged(id: saved.id, entity: saved.entity, old: old, new: body)
        }
        graph.run()
        while !graph.missing.isEmpty {
            let need = graph.missing
            graph.loaded(try await load(need), asked: need)
            graph.run()
        }

        // The writes: saved objects, related objects, tombstones.
        var writes: [JSONObject] = []
        for saved in changes.saved where savedBodies[saved.id] != nil {
            guard var body = graph.documents[saved.id] else { continue }
            let old = stored[saved.id]
            body["_id"] = .string(saved.id)
            body["_rev"] = saved.revId.map(JSONValue.string)
            body[IncrementalStore.objectVersionKey] = .string(String((old.map(Self.objectVersion) ?? 0) + 1))
            if body[IncrementalStore.identifierKey] == nil {
                body[IncrementalStore.identifierKey] =
                    old?[IncrementalStore.identifierKey]
                    ?? .string(Self.objectURI(store: metadata.storeUUID, entity: saved.entity.name, id: saved.id))
            }
            body["revId"] = nil
            body["id"] = nil
            writes.append(body)
        }
        let related = graph.touched.subtracting(savedBodies.keys).subtracting(graph.deleting)
        for id in related.sorted() {
            guard var body = graph.documents[id] else { continue }
            body[IncrementalStore.objectVersionKey] = .string(String(Self.objectVersion(body) + 1))
            writes.append(body)
        }
        let explicitRevs = Dictionary(changes.deleted.map { ($0.id, $0.revId) }, uniquingKeysWith: { first, _ in first })
        for id in deleting.keys.sorted() {
            let rev = explicitRevs[id].flatMap { $0 } ?? graph.documents[id]?["_rev"]?.stringValue
            writes.append(["_id": .string(id), "_rev": rev.map(JSONValue.string) ?? .null, "_deleted": true])
        }
        return Plan(writes: writes, deleted: Set(deleting.keys), related: related)
    }

    static func objectVersion(_ body: JSONObject) -> Int {
        switch body[IncrementalStore.objectVersionKey] {
        case .string(let text): Int(text) ?? 0
        case .number(let number): number.int64Value.map { Int($0) } ?? 0
        default: 0
        }
    }

    /// The Core Data object URI the bridge's objects carry: `x-coredata://<store UUID>/<Entity>/p<id>`.
    public static func objectURI(store uuid: String, entity: String, id: String) -> String {
        "x-coredata://\(uuid)/\(entity)/p\(id)"
    }
}
