/// How an ``OfflineWriteQueue`` settles a replayed write that conflicts with an edit made on the remote
/// while this device was offline.
///
/// Either way the loser is not lost: it is deleted as a conflict leaf, so its revision stays in the
/// document's history on both sides.
public enum ReplayConflictPolicy: Sendable {
    /// The write made on this device wins (the default): the user's latest action is what they see.
    case keepQueued
    /// The edit made on the remote wins.
    case keepRemote
    /// The replicator's resolvers decide (a field, a merge, a closure).
    case resolver(DocumentConflictPolicy)
}
