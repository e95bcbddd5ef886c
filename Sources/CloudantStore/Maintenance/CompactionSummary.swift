/// What ``DocumentStore/compact(progress:)`` did.
public struct CompactionSummary: Sendable, Hashable {
    /// Bodies of revisions that are no longer leaves, dropped (their trees kept).
    public var revisionsCompacted: Int
    /// Bodies rewritten in the store's current stored form (``DocumentStore/recompressBodies(progress:)``).
    public var bodiesRecompressed: Int
    /// Bytes the file shrank by when compaction rebuilt it; 0 when it did not.
    public var bytesReclaimed: Int64

    /// Creates a summary.
    public init(revisionsCompacted: Int, bodiesRecompressed: Int, bytesReclaimed: Int64 = 0) {
        self.revisionsCompacted = revisionsCompacted
        self.bodiesRecompressed = bodiesRecompressed
        self.bytesReclaimed = bytesReclaimed
    }
}
