internal import Foundation
internal import CloudantCore

// CareKit's knowledge-vector sync (`OCKStore.synchronize` and `OCKRemoteSynchronizable`) over the care documents: what changed since a
// vector, merging what a peer sent (insert-only, so it is idempotent, commutative and associative), and
// resolving concurrent versions with a policy.
extension CareStore {
    /// The versions a peer that knows `known` has not seen: those whose stamp has some process clock ahead of
    /// `known`'s (missing = 0), grouped by stamp, parents first within each record.
    ///
    /// ```swift
    /// let records = try await phone.revisions(since: try await watch.knowledge())
    /// try await watch.merge(records)
    /// ```
    public func revisions(since known: KnowledgeVector) async throws -> [RevisionRecord] {
        var groups: [KnowledgeVector: [CareEntity]] = [:]
        for kind in CarePlugin.builtInKindNames {
            let documents = try await versionDocuments(kind: kind, where: ["effectiveDate": ["$exists": true]])
            for document in documents {
                let stamp = CareDocument.knowledge(of: document)
                guard stamp.hasChanges(since: known), let entity = try Self.careEntity(document) else { continue }
                groups[stamp, default: []].append(entity)
            }
        }
        return groups.map { RevisionRecord(entities: $0.value, knowledgeVector: $0.key) }
            .sorted { $0.knowledgeVector.description < $1.knowledgeVector.description }
    }

    /// Stores the versions of `records` this store lacks, stamped with their record's vector, and merges the
    /// records' vectors into this store's knowledge. Nothing is ever deleted or overwritten: versions already
    /// stored are skipped, and what a peer did not send is left alone.
    public func merge(_ records: [RevisionRecord]) async throws {
        try await merge(records, serverTime: nil)
    }

    /// ``merge(_:)``, stamping the versions stored with `serverTime` (a wall-clock server's arrival time).
    func merge(_ records: [RevisionRecord], serverTime: Date?) async throws {
        // Kinds outer, records inner: a task is stored before any outcome that points at it, so outcomes get
        // their event dates whichever record carried the task.
        for kind in CarePlugin.builtInKindNames {
            for record in records {
                let entities = record.entities.filter { $0.kindName == kind }
                try await store(entities, knowledge: record.knowledgeVector, serverTime: serverTime)
            }
        }
        var vector = try await knowledge()
        for record in records { vector.merge(with: record.knowledgeVector) }
        try await setKnowledge(vector)
    }

    /// Advances this store's own clock (after a sync step, as CareKit does, so later writes are news).
    public func incrementClock() async throws {
        let state = try await clock()
        var vector = state.vector
        vector.increment(state.process)
        try await setKnowledge(vector)
    }

    /// Merges a peer's vector into this store's knowledge (the "catch-up" revision of CareKit's peer).
    public func catchUp(with vector: KnowledgeVector) async throws {
        try await setKnowledge(try await knowledge().merged(with: vector))
    }

    /// The ids of kind `type` with concurrent versions (more than one tip).
    public func conflicts<Entity: CareStorable>(_ type: Entity.Type) async throws -> [String] {
        try await allVersions(type).conflictedIDs
    }

    /// Replaces the concurrent versions of every built-in kind (in CareKit's type order) with one merge version
    /// chosen by `policy`, whose previous versions are all the tips.
    ///
    /// - Returns: The merge versions written.
    /// - Throws: `CloudantError.Code.invalidInput` when a custom resolver returns an entity of
    ///   another kind or id; what the resolver throws.
    @discardableResult
    public func resolveConflicts(policy: CareConflictPolicy) async throws -> [CareEntity] {
        var written: [CareEntity] = []
        written += try await resolveConflicts(Patient.self, policy: policy)
        written += try await resolveConflicts(CarePlan.self, policy: policy)
        written += try await resolveConflicts(Contact.self, policy: policy)
        written += try await resolveConflicts(CareTask.self, policy: policy)
        written += try await resolveConflicts(HealthKitLinkedTask.self, policy: policy)
        written += try await resolveConflicts(Outcome.self, policy: policy)
        return written
    }

    private func resolveConflicts<Entity: CareStorable>(_ type: Entity.Type, policy: CareConflictPolicy) async throws
        -> [CareEntity]
    {
        let documents = try await versionDocuments(kind: Entity.careKindName, where: ["effectiveDate": ["$exists": true]])
        let history = try VersionHistory(documents.map { try CareDocument.entity(type, from: $0) })
        let conflicted = history.conflictedIDs
        guard !conflicted.isEmpty else { return [] }
        let me = try await processID()
        var authors: [UUID: UUID] = [:]
        for document in documents {
            if let uuid = document["uuid"]?.stringValue.flatMap(UUID.init(uuidString:)),
                let author = CareDocument.author(of: document)
            {
                authors[uuid] = author
            }
        }
        var merges: [Entity] = []
        for id in conflicted {
            let tips = history.tips(id: id)
            let device = tips.filter { authors[$0.uuid] == me }
            let remote = tips.filter { authors[$0.uuid] != me }
            let chosen = try Self.choose(id: id, device: device, remote: remote, policy: policy)
            var merge = chosen
            merge.uuid = MergeVersionUUID.make(chosen: chosen.uuid, parents: tips.map(\.uuid))
            guard history.version(uuid: merge.uuid) == nil else { continue }
            merge.previousVersionUUIDs = tips.map(\.uuid).sorted { $0.uuidString < $1.uuidString }
            merge.nextVersionUUIDs = []
            merge.updatedDate = now()
            merges.append(merge)
        }
        let state = try await clock()
        try await writeDocuments(merges, knowledge: state.vector, author: state.process)
        return merges.compactMap(CareEntity.init)
    }

    private static func choose<Entity: CareStorable>(
        id: String, device: [Entity], remote: [Entity], policy: CareConflictPolicy
    ) throws -> Entity {
        // One order for every policy: by updatedDate, the larger uuid breaking ties, so devices agree.
        let older = { (a: Entity, b: Entity) in
            (a.updatedDate ?? .distantPast, a.uuid.uuidString) < (b.updatedDate ?? .distantPast, b.uuid.uuidString)
        }
        let newest = { (versions: [Entity]) in versions.max(by: older) }
        let fallback = newest(device + remote)
        let picked: Entity?
        switch policy {
        case .keepLocal: picked = newest(device) ?? fallback
        case .keepRemote: picked = newest(remote) ?? fallback
        case .newest: picked = fallback
        case .custom(let resolve):
            let newestFirst = { (versions: [Entity]) in versions.sorted { older($1, $0) } }
            let conflict = CareConflict(
                id: id, local: newestFirst(device).compactMap(CareEntity.init),
                remote: newestFirst(remote).compactMap(CareEntity.init))
            let answer = try resolve(conflict)
            guard let value = answer.value(as: Entity.self), value.id == id else {
                throw CloudantError(
                    .invalidInput, "A conflict resolver must return a version of the conflicting object.",
                    context: .init(documentID: id, kind: Entity.careKindName))
            }
            picked = value
        }
        guard let picked else {
            throw CloudantError(.notFound, "A conflict has no versions.", context: .init(documentID: id))
        }
        return picked
    }

    private func store(_ entities: [CareEntity], knowledge: KnowledgeVector, serverTime: Date?) async throws {
        guard let first = entities.first else { return }
        func write<Entity: CareStorable>(_ type: Entity.Type) async throws {
            try await writeDocuments(
                entities.compactMap { $0.value(as: type) }, knowledge: knowledge, author: nil, serverTime: serverTime)
        }
        switch first {
        case .patient: try await write(Patient.self)
        case .carePlan: try await write(CarePlan.self)
        case .contact: try await write(Contact.self)
        case .task: try await write(CareTask.self)
        case .healthKitTask: try await write(HealthKitLinkedTask.self)
        case .outcome: try await write(Outcome.self)
        }
    }

    static func careEntity(_ document: JSONObject) throws -> CareEntity? {
        switch CareDocument.kind(of: document) {
        case Patient.careKindName?: .patient(try CareDocument.entity(Patient.self, from: document))
        case CarePlan.careKindName?: .carePlan(try CareDocument.entity(CarePlan.self, from: document))
        case Contact.careKindName?: .contact(try CareDocument.entity(Contact.self, from: document))
        case CareTask.careKindName?: .task(try CareDocument.entity(CareTask.self, from: document))
        case HealthKitLinkedTask.careKindName?: .healthKitTask(try CareDocument.entity(HealthKitLinkedTask.self, from: document))
        case Outcome.careKindName?: .outcome(try CareDocument.entity(Outcome.self, from: document))
        default: nil
        }
    }
}
