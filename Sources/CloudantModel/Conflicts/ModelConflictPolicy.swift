public import CloudantCore
internal import CloudantModelSchema

/// How a model object's conflict is settled after a pull: Core Data's merge policies, in the words every
/// conflict policy of the package uses.
///
/// "Local" is the object as this store had it before the pull; "remote" is the pulled version.
///
/// | policy | Core Data | result |
/// |---|---|---|
/// | ``mergeProperties(preferring:)`` `.remote` | `NSMergeByPropertyStoreTrumpMergePolicy` | property by property; where both sides changed a property, the pulled value |
/// | ``mergeProperties(preferring:)`` `.local` | `NSMergeByPropertyObjectTrumpMergePolicy` | property by property; where both changed it, this store's value |
/// | ``newest`` | — | property by property; where both changed it, the side with the higher `CDTISObjectVersion` (CouchDB's winner on a tie) |
/// | ``keepLocal`` | `NSOverwriteMergePolicy` | this store's object, whole |
/// | ``keepRemote`` | `NSRollbackMergePolicy` | the pulled object, whole |
/// | ``custom(_:)`` | a custom `NSMergePolicy` | the body the closure returns |
///
/// Without a common ancestor every differing property counts as changed on both sides, so
/// ``mergeProperties(preferring:)`` keeps the preferred side's values. ``newest`` depends on nothing local,
/// so two replicas that resolve the same conflict on their own write the same revision and converge.
public enum ModelConflictPolicy: ConflictPolicy {
    /// This store's object replaces the pulled one, whole.
    case keepLocal
    /// The pulled object replaces this store's, whole.
    case keepRemote
    /// Property by property, the side with more saves (`CDTISObjectVersion`) wins where both changed.
    case newest
    /// Property by property, each side's changes are kept; where both changed a property, `side` wins.
    case mergeProperties(preferring: ConflictSide)
    /// The closure returns the resolved body (see ``ModelConflict/merged(choosing:)``).
    case custom(@Sendable (ModelConflict) throws -> JSONObject)

    /// The resolved body of `conflict` under this policy.
    /// - Throws: what a ``custom(_:)`` closure throws.
    public func resolvedBody(for conflict: ModelConflict) throws -> JSONObject {
        switch self {
        case .mergeProperties(let preferred):
            let other: ConflictSide = preferred == .local ? .remote : .local
            return conflict.merged { conflict.changed($0.name, on: preferred) ? preferred : other }
        case .newest:
            let newer: ConflictSide
            if conflict.local.objectVersion != conflict.remote.objectVersion {
                newer = conflict.local.objectVersion > conflict.remote.objectVersion ? .local : .remote
            } else {
                newer = conflict.leaves.first == conflict.remote.rev ? .remote : .local
            }
            return conflict.merged { property in
                let byLocal = conflict.changed(property.name, on: .local)
                let byRemote = conflict.changed(property.name, on: .remote)
                if byLocal && byRemote { return newer }
                return byRemote ? .remote : .local
            }
        case .keepLocal:
            return conflict.merged { _ in .local }
        case .keepRemote:
            return conflict.merged { _ in .remote }
        case .custom(let resolve):
            return try resolve(conflict)
        }
    }
}
