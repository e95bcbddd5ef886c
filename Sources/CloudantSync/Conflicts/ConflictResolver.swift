public import CloudantCore
public import CloudantStore

/// How to settle a conflicted document: which of its leaf revisions survives, or what merged body
/// replaces them all.
public enum ConflictResolution: Sendable, Hashable {
    /// Keep this leaf's body.
    case keep(rev: String)
    /// Write this body instead (no `_id`/`_rev` needed).
    case merged(JSONObject)
}

/// How ``ConflictResolver`` settles a conflicted document after a pull (or any sync): which leaf revision
/// survives, or what merged body replaces them all.
///
/// Named apart from the Care module's `CareConflictPolicy`, which picks among entity
/// versions, so an app importing both modules names each without qualifying it.
///
/// ```swift
/// try await ConflictResolver.resolve(in: store, policy: .newestByField("updatedDate"))
/// ```
public enum DocumentConflictPolicy: Sendable {
    /// Keep the revision the remote peer does not have yet: what this device wrote.
    case keepLocal(remote: any ReplicationPeer)
    /// Keep the revision the remote peer has (its winner, when it has several).
    case keepRemote(remote: any ReplicationPeer)
    /// Keep the leaf whose `field` collates highest (an `updatedDate`, a version counter); ties go to
    /// CouchDB's winner.
    case newestByField(String)
    /// Combine every leaf into one body.
    case merge(@Sendable (_ leaves: [JSONObject]) async throws -> JSONObject)
    /// Decide per document.
    case custom(@Sendable (_ leaves: [JSONObject]) async throws -> ConflictResolution)
}

/// One document the resolver settled.
public struct ResolvedConflict: Sendable, Hashable {
    /// The document.
    public var id: String
    /// The revision that now wins, written on top of the kept leaf.
    public var rev: String
    /// The losing leaves, now deleted.
    public var deletedLeaves: [String]
}

/// Lists and resolves conflicted documents.
///
/// Resolving writes a proper new revision on one leaf (the kept body, or the merged one) and a tombstone
/// on every other leaf, as CouchDB's documentation prescribes, so the next sync carries the resolution
/// and both sides converge with no conflicts left.
///
/// ```swift
/// _ = try await Replicator(source: remote, target: LocalPeer(store)).run()
/// let settled = try await ConflictResolver.resolve(in: store, policy: .newestByField("updatedDate"))
/// _ = try await Replicator(source: LocalPeer(store), target: remote).run()
/// ```
public enum ConflictResolver {
    /// Every leaf of a conflicted document, winner first (CouchDB's `open_revs=all` without deleted leaves).
    public static func leaves(of id: String, in store: DocumentStore) async throws -> [JSONObject] {
        let winner = try await store.document(id: id, options: ReadOptions(conflicts: true))
        let others = winner["_conflicts"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let fetched = try await store.openRevisions(id: id, .revisions(others))
        return [winner.removing("_conflicts")] + fetched.compactMap { if case .ok(let document) = $0 { document } else { nil } }
    }

    /// Resolves every conflicted document of `store` with `policy`.
    @discardableResult
    public static func resolve(in store: DocumentStore, policy: DocumentConflictPolicy) async throws -> [ResolvedConflict] {
        var resolved: [ResolvedConflict] = []
        for id in try await store.conflictedDocumentIDs() {
            let leaves = try await leaves(of: id, in: store)
            guard leaves.count > 1 else { continue }
            resolved.append(try await resolve(id: id, leaves: leaves, resolution: decide(policy, id: id, leaves: leaves), in: store))
        }
        return resolved
    }

    /// Applies a resolution to one document's leaves.
    public static func resolve(
        id: String, leaves: [JSONObject], resolution: ConflictResolution, in store: DocumentStore
    ) async throws -> ResolvedConflict {
        let revs = leaves.compactMap { $0["_rev"]?.stringValue }
        let keptRev: String
        var body: JSONObject
        switch resolution {
        case .keep(let rev):
            guard let kept = leaves.first(where: { $0["_rev"]?.stringValue == rev }) else {
                throw CloudantError(.invalidInput, "The resolution keeps \(rev), which is not a leaf of \(id).", context: .init(documentID: id, revision: rev))
            }
            keptRev = rev
            body = kept
        case .merged(let merged):
            keptRev = revs[0]
            body = merged
        }
        body["_id"] = .string(id)
        body["_rev"] = .string(keptRev)
        body["_conflicts"] = nil
        body["_revisions"] = nil
        let losers = revs.filter { $0 != keptRev }
        let writes: [JSONValue] = [.object(body)] + losers.map { ["_id": .string(id), "_rev": .string($0), "_deleted": true] }
        let results = try await store.bulkDocs(writes)
        guard case .ok(let written) = results[0] else {
            if case .failure(_, let error) = results[0] { throw error }
            throw CloudantError(.storeUnwritable, "The resolution of \(id) was not written.", context: .init(documentID: id))
        }
        for result in results.dropFirst() {
            if case .failure(_, let error) = result { throw error }
        }
        return ResolvedConflict(id: id, rev: written.rev, deletedLeaves: losers)
    }

    static func decide(_ policy: DocumentConflictPolicy, id: String, leaves: [JSONObject]) async throws -> ConflictResolution {
        let revs = leaves.compactMap { $0["_rev"]?.stringValue }
        switch policy {
        case .keepLocal(let remote), .keepRemote(let remote):
            let missing = Set(try await remote.revsDiff([id: revs])[id]?.missing ?? [])
            let localOnly = revs.filter(missing.contains)
            let remoteHeld = revs.filter { !missing.contains($0) }
            // Leaves are winner-first, so the first of each group is CouchDB's winner within it.
            if case .keepLocal = policy { return .keep(rev: localOnly.first ?? revs[0]) }
            return .keep(rev: remoteHeld.first ?? revs[0])
        case .newestByField(let field):
            let path = try FieldPath(parsing: field)
            var best = leaves[0]
            for leaf in leaves.dropFirst() {
                guard case .found(let candidate) = path.lookup(in: .object(leaf)) else { continue }
                guard case .found(let current) = path.lookup(in: .object(best)) else {
                    best = leaf
                    continue
                }
                if Collation.compare(candidate, current) > 0 { best = leaf }
            }
            return .keep(rev: best["_rev"]?.stringValue ?? revs[0])
        case .merge(let combine):
            return .merged(try await combine(leaves))
        case .custom(let decide):
            return try await decide(leaves)
        }
    }
}

extension JSONObject {
    fileprivate func removing(_ key: String) -> JSONObject {
        var copy = self
        copy[key] = nil
        return copy
    }
}
