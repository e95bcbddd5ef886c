/// Which side of a conflict wrote a version.
///
/// "Local" is always this side: this device, this store, the write queued here while offline. "Remote" is
/// the other side: the database synced with, the peer device, the revisions a pull brought in.
public enum ConflictSide: Sendable, Hashable {
    /// Written on this side.
    case local
    /// Written on the other side.
    case remote
}

/// The words every conflict policy shares, whatever it settles.
///
/// Each layer that settles conflicts has its own policy type, because what it settles differs: CloudantSync's
/// `DocumentConflictPolicy` picks among a document's leaf revisions (the replicator's resolver and the
/// offline queue), the Care module's `CareConflictPolicy` among an object's concurrent versions, and
/// CloudantModel's `ModelConflictPolicy` property by property. They share this vocabulary, so "this side
/// wins" is `.keepLocal` everywhere, and each adds `custom`, a closure that receives the domain's conflict
/// (a ``Conflict`` of its versions, split by ``ConflictSide``) and returns what wins.
///
/// ```swift
/// func settleEverything<Policy: ConflictPolicy>(with policy: Policy = .newest) { … }
/// ```
public protocol ConflictPolicy: Sendable {
    /// What this side wrote wins (the newest of its versions when it has several); the other side's when
    /// this side wrote none.
    static var keepLocal: Self { get }
    /// What the other side has wins; this side's when the other side has none of the versions.
    static var keepRemote: Self { get }
    /// The newest version wins, by the domain's own measure, which every replica computes the same way, so
    /// replicas that settle one conflict on their own write the same resolution and converge.
    static var newest: Self { get }
}
