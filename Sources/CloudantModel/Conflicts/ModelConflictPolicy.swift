public import CloudantCore
internal import CloudantModelSchema

/// How to resolve merge conflicts after a pull: Core Data's merge policies, and two more.
///
/// "Object" is the version this store had before the pull; "store" is the pulled one.
///
/// | policy | Core Data | result |
/// |---|---|---|
/// | ``storeTrump`` | `NSMergeByPropertyStoreTrumpMergePolicy` | property by property; where both sides changed a property, the pulled value |
/// | ``objectTrump`` | `NSMergeByPropertyObjectTrumpMergePolicy` | property by property; where both changed it, this store's value |
/// | ``propertyNewest`` | — | property by property; where both changed it, the side with the higher `CDTISObjectVersion` (CouchDB's winner on a tie) |
/// | ``overwrite`` | `NSOverwriteMergePolicy` | this store's object, whole |
/// | ``rollback`` | `NSRollbackMergePolicy` | the pulled object, whole |
/// | ``custom(_:)`` | a custom `NSMergePolicy` | the body the closure returns |
///
/// Without a common ancestor every differing property counts as changed on both sides, so the two
/// by-property policies keep the trumping side's values. ``propertyNewest`` depends on nothing local, so
/// two replicas that resolve the same conflict on their own write the same revision and converge.
public enum MergePolicy: Sendable {
    /// Property by property, the pulled side wins where both changed.
    case storeTrump
    /// Property by property, this store's side wins where both changed.
    case objectTrump
    /// Property by property, the side with more saves (`CDTISObjectVersion`) wins where both changed.
    case propertyNewest
    /// This store's object replaces the pulled one.
    case overwrite
    /// The pulled object replaces this store's.
    case rollback
    /// The closure returns the resolved body (see ``MergeConflict/merged(choosing:)``).
    case custom(@Sendable (MergeConflict) throws -> JSONObject)

    /// The resolved body of `conflict` under this policy.
    /// - Throws: what a ``custom(_:)`` closure throws.
    public func resolvedBody(for conflict: MergeConflict) throws -> JSONObject {
        switch self {
        case .storeTrump:
            return conflict.merged { conflict.changed($0.name, on: .store) ? .store : .object }
        case .objectTrump:
            return conflict.merged { conflict.changed($0.name, on: .object) ? .object : .store }
        case .propertyNewest:
            let newer: MergeConflict.Side
            if conflict.object.objectVersion != conflict.store.objectVersion {
                newer = conflict.object.objectVersion > conflict.store.objectVersion ? .object : .store
            } else {
                newer = conflict.leaves.first == conflict.store.rev ? .store : .object
            }
            return conflict.merged { property in
                let byObject = conflict.changed(property.name, on: .object)
                let byStore = conflict.changed(property.name, on: .store)
                if byObject && byStore { return newer }
                return byStore ? .store : .object
            }
        case .overwrite:
            return conflict.merged { _ in .object }
        case .rollback:
            return conflict.merged { _ in .store }
        case .custom(let resolve):
            return try resolve(conflict)
        }
    }
}
