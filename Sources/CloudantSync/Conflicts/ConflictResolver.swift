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
/// let settled = try await ConflictResolver.resolve(in: store, against: remote, policy: .keepLocal)
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
    ///
    /// - Parameters:
    ///   - store: The store whose conflicts are settled.
    ///   - remote: The peer this store syncs with: a leaf it does not hold was written locally. Required by
    ///     ``DocumentConflictPolicy/keepLocal`` and ``DocumentConflictPolicy/keepRemote``; without it, a
    ///     custom policy sees every leaf as local.
    ///   - policy: Which leaf wins.
    /// - Returns: The documents settled.
    /// - Throws: `CloudantError.Code.invalidInput` when the policy needs `remote` and none is given, or a
    ///   custom policy's body is not valid; the peer's or the store's errors; what a custom policy throws.
    @discardableResult
    public static func resolve(
        in store: DocumentStore, against remote: (any ReplicationPeer)? = nil, policy: DocumentConflictPolicy
    ) async throws -> [ResolvedConflict] {
        if remote == nil, policy.needsRemote {
            throw CloudantError(
                .invalidInput, "keepLocal and keepRemote tell the sides apart by asking the remote peer; pass it as against:.")
        }
        var conflicted: [String: [JSONObject]] = [:]
        let ids = try await store.conflictedDocumentIDs()
        for id in ids {
            let leaves = try await leaves(of: id, in: store)
            if leaves.count > 1 { conflicted[id] = leaves }
        }
        // The leaves each document has that the remote lacks, when the policy looks at sides and a remote is
        // given; otherwise every leaf counts as local.
        var localOnly: [String: Set<String>]?
        if let remote, policy.needsSides, !conflicted.isEmpty {
            let asked = conflicted.mapValues { $0.compactMap { $0["_rev"]?.stringValue } }
            localOnly = try await remote.revsDiff(asked).mapValues { Set($0.missing) }
        }
        var resolved: [ResolvedConflict] = []
        for id in ids {
            guard let leaves = conflicted[id] else { continue }
            var conflict = Conflict(id: id, local: leaves, remote: [])
            if let localOnly {
                let missing = localOnly[id] ?? []
                conflict.local = leaves.filter { missing.contains($0.rev) }
                conflict.remote = leaves.filter { !missing.contains($0.rev) }
            }
            let resolution = try await decide(policy, conflict: conflict, leaves: leaves)
            resolved.append(try await resolve(id: id, leaves: leaves, resolution: resolution, in: store))
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

    /// The policy's choice among a document's leaves (`leaves` winner first, `conflict` the same leaves split
    /// by side, each side winner first).
    static func decide(
        _ policy: DocumentConflictPolicy, conflict: Conflict<JSONObject>, leaves: [JSONObject]
    ) async throws -> ConflictResolution {
        switch policy {
        case .keepLocal:
            return .keep(rev: (conflict.local.first ?? leaves[0]).rev)
        case .keepRemote:
            return .keep(rev: (conflict.remote.first ?? leaves[0]).rev)
        case .newest:
            return .keep(rev: leaves[0].rev)
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
            return .keep(rev: best.rev)
        case .custom(let choose):
            let body = try await choose(conflict)
            if let kept = leaves.first(where: { $0 == body }) { return .keep(rev: kept.rev) }
            return .merged(body)
        }
    }
}

extension JSONObject {
    /// A leaf's revision (every leaf the store returns has one).
    fileprivate var rev: String { self["_rev"]?.stringValue ?? "" }

    fileprivate func removing(_ key: String) -> JSONObject {
        var copy = self
        copy[key] = nil
        return copy
    }
}
