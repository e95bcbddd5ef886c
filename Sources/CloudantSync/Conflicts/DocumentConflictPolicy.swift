public import CloudantCore

/// How a conflicted document is settled: which of its leaf revisions survives, or what body replaces them
/// all. ``ConflictResolver`` applies it after a sync, and an ``OfflineWriteQueue`` to a replayed write that
/// met an edit made on the remote.
///
/// "Local" leaves are the ones written on this side: those the remote peer does not hold (the resolver asks
/// it with `_revs_diff`), or the write the offline queue replayed. Whatever is kept, the other leaves are
/// deleted rather than lost, so their revisions stay in the document's history on both sides.
///
/// ```swift
/// try await ConflictResolver.resolve(in: store, against: remote, policy: .keepLocal)
/// try await ConflictResolver.resolve(in: store, policy: .newestByField("updatedDate"))
/// ```
public enum DocumentConflictPolicy: ConflictPolicy {
    /// The leaf written on this side wins (CouchDB's winner among them when there are several); the
    /// remote's when every leaf came from it.
    case keepLocal
    /// The leaf the remote holds wins (its winner, when it holds several); this side's when the remote holds
    /// none of them.
    case keepRemote
    /// The leaf with the longest edit history wins, which is CouchDB's winner: every replica picks it alike.
    case newest
    /// The leaf whose `field` (a dotted path) collates highest in CouchDB's order wins (an `updatedDate`, a
    /// version counter); a leaf without the field never beats one with it, and ties go to CouchDB's winner.
    case newestByField(String)
    /// Decide per document. Return one of the conflict's leaves unchanged to keep it, or any other body (a
    /// merge of the leaves) to replace them all; `_id` and `_rev` are set by the resolver.
    case custom(@Sendable (Conflict<JSONObject>) async throws -> JSONObject)

    /// Whether the policy cannot decide without knowing which leaves the remote holds.
    var needsRemote: Bool {
        switch self {
        case .keepLocal, .keepRemote: true
        case .newest, .newestByField, .custom: false
        }
    }

    /// Whether the policy looks at which leaves are local, so the resolver asks the remote when it has one.
    var needsSides: Bool {
        switch self {
        case .keepLocal, .keepRemote, .custom: true
        case .newest, .newestByField: false
        }
    }
}

/// The offline queue's earlier name for the document policy.
@available(*, deprecated, renamed: "DocumentConflictPolicy")
public typealias ReplayConflictPolicy = DocumentConflictPolicy

extension DocumentConflictPolicy {
    /// The write made on this device wins: the offline queue's earlier name for ``keepLocal``.
    @available(*, deprecated, renamed: "keepLocal")
    public static var keepQueued: Self { .keepLocal }

    /// The offline queue's earlier wrapper for a resolver policy: the policy itself.
    @available(*, deprecated, message: "pass the DocumentConflictPolicy itself")
    public static func resolver(_ policy: DocumentConflictPolicy) -> Self { policy }
}
