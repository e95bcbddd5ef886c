/// What ``DocumentStore/compact(progress:)`` did.
public struct CompactionSummary: Sendable, Hashable {
    /// Bodies of revisions that are no longer leaves, dropped (their trees kept).
    public var revisionsCompacted: Int
    /// Bodies rewritten in the store's current stored form (``DocumentStore/recompressBodies(progress:)``).
    public var bodiesRecompressed: Int

    /// Creates a summary.
    public init(revisionsCompacted: Int, bodiesRecompressed: Int) {
        self.revisionsCompacted = revisionsCompacted
        self.bodiesRecompressed = bodiesRecompressed
    }
}
