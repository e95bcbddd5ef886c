public import CloudantCore

/// How ``CareStore/resolveConflicts(policy:)`` picks the version that replaces concurrent versions (several
/// tips of one id). Whatever it picks is written as a merge version whose previous versions are all the tips.
///
/// "Local" versions are the ones written on this device; "remote" ones arrived from peers (by peer sync or
/// replication). Within each side, the newest version comes first.
///
/// ```swift
/// try await care.resolveConflicts(policy: .custom { conflict in
///     conflict.remote.first ?? conflict.local[0]
/// })
/// ```
public enum CareConflictPolicy: ConflictPolicy {
    /// Keep this device's newest tip (CareKit's `keepDevice`); the remote's when the device has none.
    case keepLocal
    /// Keep the newest tip that came from a peer (CareKit's `keepRemote`); the device's when there is none.
    case keepRemote
    /// Keep the tip with the latest `updatedDate`, the larger uuid breaking ties: every device picks the same
    /// version, so concurrent resolutions write the same merge version and converge.
    case newest
    /// Ask the app (CareKit 4's `chooseConflictResolution`); the returned entity must keep the conflict's id.
    case custom(@Sendable (CareConflict) throws -> CareEntity)
}

/// The concurrent versions of one care object, split by where they were written: on this device (`local`)
/// or on peers (`remote`), each side newest first.
public typealias CareConflict = Conflict<CareEntity>

/// What a care conflict says of the object it concerns.
extension Conflict where Version == CareEntity {
    /// The kind name of the conflicting object (`OCKTask`, `OCKOutcome`…).
    public var kindName: String { versions.first?.kindName ?? "" }

    /// The versions written on this device: the earlier name of `local`.
    @available(*, deprecated, renamed: "local")
    public var device: [CareEntity] { local }

    /// Creates a conflict description (the earlier initializer, with the device's versions as `local`).
    @available(*, deprecated, renamed: "init(id:local:remote:)")
    public init(id: String, kindName: String, device: [CareEntity], remote: [CareEntity]) {
        self.init(id: id, local: device, remote: remote)
    }
}

extension CareConflictPolicy {
    /// The tip with the latest `updatedDate` wins: the earlier name of ``newest``.
    @available(*, deprecated, renamed: "newest")
    public static var lastWriteWins: Self { .newest }
}
