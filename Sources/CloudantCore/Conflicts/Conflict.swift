/// The concurrent versions of one thing, split by the side that wrote them: what a policy's `custom`
/// closure decides on.
///
/// `Version` is the domain's version: a document body (`JSONObject`) for the replicator's resolver and the
/// offline queue, a `CareEntity` for care sync. Within each side the versions come in the domain's order
/// of preference (CouchDB's winner first for documents, newest first for care versions).
///
/// ```swift
/// let policy = DocumentConflictPolicy.custom { conflict in
///     conflict.remote.first ?? conflict.local[0]
/// }
/// ```
public struct Conflict<Version: Sendable>: Sendable {
    /// The id of what conflicts (a document id, a care object's id).
    public var id: String
    /// The versions written on this side.
    public var local: [Version]
    /// The versions written on the other side.
    public var remote: [Version]

    /// Creates a conflict of `id` between `local` and `remote` versions.
    public init(id: String, local: [Version], remote: [Version]) {
        self.id = id
        self.local = local
        self.remote = remote
    }

    /// Every version, this side's first.
    public var versions: [Version] { local + remote }

    /// The versions written on `side`.
    public func versions(on side: ConflictSide) -> [Version] {
        side == .local ? local : remote
    }
}

extension Conflict: Equatable where Version: Equatable {}
extension Conflict: Hashable where Version: Hashable {}
