public import CloudantCore
internal import CloudantStore
internal import Foundation

extension RepositoryProxy {
    public func store(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(.store, models)
    }

    public func update(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(.update, models)
    }

    public func remove(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(.remove, models)
    }

    public func storeOrUpdate(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(.storeOrUpdate, models)
    }

    /// Writes to the rule's target; see ``RepositoryStrategy`` for what synchronize and fallback do.
    private func write(_ action: RepositoryStrategy.Action, _ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        let rule = strategy.rule(for: action)
        switch rule.target {
        case .local:
            let written: (entities: [Entity], pending: [PendingWrite])
            do {
                written = try await writeLocally(action, models, enqueue: rule.synchronize)
            } catch let failure where failure.allowsFallback && rule.fallback == .remote {
                var result = try await writeRemotely(action, models, keepLocally: false)
                result.origin = .remoteAfterLocalFailed
                result.metadata[.local] = RepositoryMetadata(date: store.options.now(), failure: failure)
                return result
            }
            var result = localResult(written.entities, origin: .local, pending: written.pending)
            if rule.synchronize { await send(&result) }
            return result
        case .remote:
            await sendQueuedWrites()
            do {
                return try await writeRemotely(action, models, keepLocally: rule.synchronize)
            } catch let failure where failure.allowsFallback && rule.fallback == .local {
                // Kept here and queued in one transaction: the write reaches the remote when it is back.
                let written = try await writeLocally(action, models, enqueue: true)
                await queue.scheduleReplay()
                var result = localResult(written.entities, origin: .localAfterRemoteFailed, pending: written.pending)
                result.metadata[.remote] = RepositoryMetadata(date: store.options.now(), failure: failure)
                return result
            }
        }
    }

    /// The store's write, queued for the remote in the same transaction when `enqueue` is set.
    private func writeLocally(
        _ action: RepositoryStrategy.Action, _ models: [Entity], enqueue: Bool
    ) async throws(CloudantError) -> (entities: [Entity], pending: [PendingWrite]) {
        guard enqueue else {
            return (try await local.write(action, models).value, [])
        }
        do {
            switch action {
            case .store: return try await store.add(models, enqueueingFor: identity)
            case .update: return try await store.update(models, enqueueingFor: identity)
            case .remove: return try await store.delete(models, enqueueingFor: identity)
            default:
                let prepared = try await local.withCurrentRevisions(models)
                let fresh = prepared.filter { $0.revId == nil }
                let existing = prepared.filter { $0.revId != nil }
                let created = fresh.isEmpty ? ([], []) : try await store.add(fresh, enqueueingFor: identity)
                let updated = existing.isEmpty ? ([], []) : try await store.update(existing, enqueueingFor: identity)
                return (LocalRepository<Entity>.inOrder(models, created.0 + updated.0), created.1 + updated.1)
            }
        } catch {
            throw CloudantError.fromStore(error)
        }
    }

    /// The remote's write; with `keepLocally`, the revisions it made are written into the store too.
    private func writeRemotely(
        _ action: RepositoryStrategy.Action, _ models: [Entity], keepLocally: Bool
    ) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        var result = try await remote.write(action, models)
        guard keepLocally else { return result }
        do {
            try await mirror(result.value, parents: models, deleted: action == .remove)
            result.metadata[.local] = RepositoryMetadata(revisions: result.value.revisionsByID(), date: store.options.now())
        } catch {
            result.metadata[.local] = RepositoryMetadata(date: store.options.now(), failure: CloudantError.fromStore(error))
        }
        return result
    }

    /// Writes the remote's new revisions into the store as replicated revisions (their parents named in
    /// `_revisions`), so both sides hold the same revision ids and the next sync moves nothing.
    private func mirror(_ written: [Entity], parents: [Entity], deleted: Bool) async throws {
        let codec = try local.codec()
        let parentRevision = Dictionary(
            parents.compactMap { item in item.revId.map { (item.id.description, $0) } }, uniquingKeysWith: { first, _ in first })
        var documents: [JSONValue] = []
        for (index, entity) in written.enumerated() {
            guard let rev = entity.revId, let revision = try? RevisionID(parsing: rev) else { continue }
            let id = entity.id.description
            var document: JSONObject =
                deleted ? ["_id": .string(id), "_deleted": true] : try codec.document(for: entity, index: index, includeRev: false)
            document["_rev"] = .string(rev)
            var ancestry: [JSONValue] = [.string(revision.hash)]
            if let parent = parentRevision[id].flatMap({ try? RevisionID(parsing: $0) }), parent.generation == revision.generation - 1 {
                ancestry.append(.string(parent.hash))
            }
            document["_revisions"] = ["start": .number(JSONNumber(revision.generation)), "ids": .array(ancestry)]
            documents.append(.object(document))
        }
        for result in try await store.bulkDocs(documents, newEdits: false) {
            if case .failure(_, let error) = result { throw error }
        }
    }

    /// Sends the queue now (this call's writes with it); the result says what is still waiting.
    private func send(_ result: inout RepositoryResult<[Entity]>) async {
        do {
            try await queue.replay()
            let waiting = Set(try await store.pendingWrites(for: identity).map(\.id))
            result.pendingWrites = result.pendingWrites.filter { waiting.contains($0.id) }
            if result.pendingWrites.isEmpty {
                result.metadata[.remote] = RepositoryMetadata(revisions: result.value.revisionsByID(), date: store.options.now())
            }
        } catch {
            result.metadata[.remote] = RepositoryMetadata(date: store.options.now(), failure: CloudantError.fromRemote(error, url: remote.database.url))
            await queue.scheduleReplay()
        }
    }

    private func localResult(_ entities: [Entity], origin: RepositoryOrigin, pending: [PendingWrite]) -> RepositoryResult<[Entity]> {
        RepositoryResult(
            value: entities, origin: origin,
            metadata: [.local: RepositoryMetadata(revisions: entities.revisionsByID(), date: store.options.now())],
            pendingWrites: pending)
    }
}

extension Repository {
    /// The write `action` names (`store`, `update`, `remove`; any other, `storeOrUpdate`), made on this source:
    /// the proxy's strategies send one action to either source.
    fileprivate func write(
        _ action: RepositoryStrategy.Action, _ models: [Entity]
    ) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        switch action {
        case .store: try await store(models)
        case .update: try await update(models)
        case .remove: try await remove(models)
        default: try await storeOrUpdate(models)
        }
    }
}
