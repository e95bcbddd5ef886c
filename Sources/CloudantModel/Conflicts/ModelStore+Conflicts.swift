internal import CloudantCore
internal import CloudantModelSchema
internal import CloudantStore
public import CloudantSync

extension ModelStore {
    /// The model objects of this store that have conflicting revisions, as merge conflicts. `pulled` names
    /// the revisions a pull brought in (``ModelReplicator/pulledRevisions``); without it, CouchDB's winner
    /// stands for this store's side.
    ///
    /// A conflict on `CDTISMetaData` is settled here by keeping CouchDB's winner, as every replica does.
    /// - Throws: `CloudantError` when the store cannot be read.
    public func mergeConflicts(pulled: [String: Set<String>] = [:]) async throws -> [ModelConflict] {
        var conflicts: [ModelConflict] = []
        for id in try await store.conflictedDocumentIDs() {
            let leaves = try await ConflictResolver.leaves(of: id, in: store)
            guard leaves.count > 1 else { continue }
            if id == IncrementalStore.metadataDocumentID {
                if let winner = leaves[0]["_rev"]?.stringValue {
                    _ = try await ConflictResolver.resolve(id: id, leaves: leaves, resolution: .keep(rev: winner), in: store)
                }
                continue
            }
            guard let entity = leaves[0][IncrementalStore.entityNameKey]?.stringValue.flatMap(version.entity(named:)) else {
                continue
            }
            let revs = leaves.compactMap { $0["_rev"]?.stringValue }
            let fromPull = pulled[id] ?? []
            let local = leaves.filter { !fromPull.contains($0["_rev"]?.stringValue ?? "") }
            let arrived = leaves.filter { fromPull.contains($0["_rev"]?.stringValue ?? "") }
            let objectBody: JSONObject
            let storeBody: JSONObject
            if let mine = local.first, let theirs = arrived.first {
                objectBody = mine
                storeBody = theirs
            } else {
                objectBody = leaves[0]
                storeBody = leaves[1]
            }
            let object = ModelConflict.Snapshot(rev: objectBody["_rev"]?.stringValue ?? "", body: objectBody)
            let pulledSide = ModelConflict.Snapshot(rev: storeBody["_rev"]?.stringValue ?? "", body: storeBody)
            let ancestor = try await commonAncestor(of: id, object.rev, pulledSide.rev)
            conflicts.append(
                ModelConflict(objectID: id, entity: entity, local: object, remote: pulledSide, ancestor: ancestor, leaves: revs))
        }
        return conflicts
    }

    /// The deepest revision both leaves descend from, with its body, if the store still keeps it.
    func commonAncestor(of id: String, _ first: String, _ second: String) async throws -> ModelConflict.Snapshot? {
        func path(_ rev: String) async throws -> [String] {
            let document = try await store.document(id: id, options: ReadOptions(rev: rev, revs: true))
            guard let revisions = document["_revisions"], let start = revisions["start"]?.numberValue?.int64Value,
                let ids = revisions["ids"]?.arrayValue?.compactMap(\.stringValue)
            else { return [] }
            return ids.enumerated().map { "\(start - Int64($0.offset))-\($0.element)" }
        }
        let mine = try await path(first)
        let theirs = Set(try await path(second))
        guard let shared = mine.first(where: theirs.contains) else { return nil }
        do {
            var body = try await store.document(id: id, options: ReadOptions(rev: shared))
            body["_revisions"] = nil
            return ModelConflict.Snapshot(rev: shared, body: body)
        } catch let error as CloudantError where error.code == .notFound {
            return nil
        }
    }

    /// Resolves merge conflicts with `policy`: for each, writes the resolved body as one new revision on the
    /// first leaf and a tombstone on every other leaf, so both replicas converge at the next sync.
    ///
    /// ```swift
    /// let settled = try await models.resolve(try await pull.processConflicts(), policy: .mergeProperties(preferring: .remote))
    /// try await models.replicatorThatPushes(to: remote).run()
    /// ```
    /// - Returns: what was written, per object.
    /// - Throws: what a custom policy throws; `CloudantError` `.conflict` when an object changed
    ///   since the conflicts were read (read them again).
    @discardableResult
    public func resolve(_ conflicts: [ModelConflict], policy: ModelConflictPolicy) async throws -> [ResolvedConflict] {
        var resolved: [ResolvedConflict] = []
        for conflict in conflicts {
            let leaves = try await ConflictResolver.leaves(of: conflict.objectID, in: store)
            let current = leaves.compactMap { $0["_rev"]?.stringValue }
            guard current == conflict.leaves else {
                throw CloudantError(
                    .conflict, "The object changed since its conflicts were read; process the conflicts again.",
                    context: .init(documentID: conflict.objectID, kind: conflict.entity.name))
            }
            let body = try policy.resolvedBody(for: conflict)
            resolved.append(
                try await ConflictResolver.resolve(id: conflict.objectID, leaves: leaves, resolution: .merged(body), in: store))
        }
        return resolved
    }
}
