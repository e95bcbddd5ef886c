/// What one ``HealthSynchronizer/synchronize()`` moved in each direction.
public struct HealthSyncReport: Codable, Hashable, Sendable {
    /// Samples the source reported as added or changed (identical ones are not rewritten).
    public var pulledSamples = 0
    /// Deletions the source reported.
    public var pulledDeletions = 0
    /// Samples sent to the source.
    public var pushedSamples = 0
    /// Deletions sent to the source.
    public var pushedDeletions = 0
    /// Store writes the pull made (samples written or deleted).
    public var storeWrites = 0

    /// Creates an empty report.
    public init() {}
}
