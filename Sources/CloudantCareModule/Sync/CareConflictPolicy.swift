/// How ``CareStore/resolveConflicts(policy:)`` picks the version that replaces concurrent versions (several
/// tips of one id). Whatever it picks is written as a merge version whose previous versions are all tips.
///
/// Named apart from CloudantSync's `DocumentConflictPolicy`, which picks among a document's revisions, so an
/// app importing both modules names each without qualifying it.
///
/// ```swift
/// try await care.resolveConflicts(policy: .custom { conflict in
///     conflict.remote.first ?? conflict.device[0]
/// })
/// ```
public enum CareConflictPolicy: Sendable {
    /// Keep this device's newest tip (CareKit 2.1's `keepDevice`); the remote's tips when the device has none.
    case keepDevice
    /// Keep the newest tip that came from a peer (CareKit 2.1's `keepRemote`); the device's when there is none.
    case keepRemote
    /// Keep the tip with the latest `updatedDate`, the larger uuid breaking ties: every device picks the same
    /// version, so concurrent resolutions write the same merge version and converge.
    case lastWriteWins
    /// Ask the app (CareKit 4's `chooseConflictResolution`); the returned entity must keep the conflict's id.
    case custom(@Sendable (CareConflict) throws -> CareEntity)
}

/// The concurrent versions of one object, split by where they were written.
public struct CareConflict: Sendable, Hashable {
    /// The object's id.
    public var id: String
    /// The kind name.
    public var kindName: String
    /// Tips written on this device.
    public var device: [CareEntity]
    /// Tips that arrived from peers (by peer sync or replication).
    public var remote: [CareEntity]

    /// Creates a conflict description.
    public init(id: String, kindName: String, device: [CareEntity], remote: [CareEntity]) {
        self.id = id
        self.kindName = kindName
        self.device = device
        self.remote = remote
    }
}
