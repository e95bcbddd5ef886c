public import CloudantCore

/// The earlier name of ``ModelConflictPolicy``.
@available(*, deprecated, renamed: "ModelConflictPolicy")
public typealias MergePolicy = ModelConflictPolicy

/// The earlier name of ``ModelConflict``.
@available(*, deprecated, renamed: "ModelConflict")
public typealias MergeConflict = ModelConflict

extension ModelConflictPolicy {
    /// `NSMergeByPropertyStoreTrumpMergePolicy`: property by property, the pulled side wins where both changed.
    @available(*, deprecated, message: "use mergeProperties(preferring: .remote)")
    public static var storeTrump: Self { .mergeProperties(preferring: .remote) }

    /// `NSMergeByPropertyObjectTrumpMergePolicy`: property by property, this store's side wins where both changed.
    @available(*, deprecated, message: "use mergeProperties(preferring: .local)")
    public static var objectTrump: Self { .mergeProperties(preferring: .local) }

    /// Property by property, the side with more saves wins where both changed.
    @available(*, deprecated, renamed: "newest")
    public static var propertyNewest: Self { .newest }

    /// `NSOverwriteMergePolicy`: this store's object, whole.
    @available(*, deprecated, renamed: "keepLocal")
    public static var overwrite: Self { .keepLocal }

    /// `NSRollbackMergePolicy`: the pulled object, whole.
    @available(*, deprecated, renamed: "keepRemote")
    public static var rollback: Self { .keepRemote }
}

extension ModelConflict {
    /// The object before the pull: the earlier name of ``ModelConflict/local``.
    @available(*, deprecated, renamed: "local")
    public var object: Snapshot { local }

    /// The pulled version: the earlier name of ``ModelConflict/remote``.
    @available(*, deprecated, renamed: "remote")
    public var store: Snapshot { remote }
}

/// Core Data's names for the two sides of a model conflict.
extension ConflictSide {
    /// The object as it was in this store before the pull (Core Data's object snapshot): `ConflictSide.local`.
    @available(*, deprecated, renamed: "local")
    public static var object: Self { .local }

    /// The version the pull brought in (Core Data's persisted snapshot): `ConflictSide.remote`.
    @available(*, deprecated, renamed: "remote")
    public static var store: Self { .remote }
}
