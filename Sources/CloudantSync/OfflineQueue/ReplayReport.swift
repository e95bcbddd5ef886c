public import CloudantStore

/// What one replay of the offline queue did.
public struct ReplayReport: Sendable {
    /// Queued writes the remote now holds (sent now, or found already there), removed from the queue.
    public var sent: Int
    /// Queued writes whose revision the store no longer has (purged, or its document compacted away);
    /// removed from the queue unsent.
    public var skipped: Int
    /// Queued writes the remote refused (a validation function, permissions); they stay queued with the
    /// reason in `PendingWrite.lastError`.
    public var refused: [PendingWrite]
    /// Documents the replay left conflicted on the remote (an edit made there while this device was
    /// offline), settled with the queue's conflict policy.
    public var resolvedConflicts: [ResolvedConflict]

    /// An empty report.
    public init(sent: Int = 0, skipped: Int = 0, refused: [PendingWrite] = [], resolvedConflicts: [ResolvedConflict] = []) {
        self.sent = sent
        self.skipped = skipped
        self.refused = refused
        self.resolvedConflicts = resolvedConflicts
    }
}
