/// Somewhere health samples live besides the store: HealthKit on Apple platforms (an `HKAnchoredObjectQuery`
/// and `HKHealthStore.save`/`delete`), or here another store (``StoreHealthSampleSource``) or an in-memory set
/// (``InMemoryHealthSampleSource``, for tests and for exports read into memory).
///
/// ```swift
/// struct HealthKitSource: HealthSampleSource {
///     func changes(since anchor: String?, limit: Int) async throws -> HealthSourceChanges { … }
///     func apply(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws { … }
/// }
/// let report = try await HealthSynchronizer(store: store, source: HealthKitSource()).synchronize()
/// ```
///
/// Samples are matched by their uuid, which is also their document id in the store.
public protocol HealthSampleSource: Sendable {
    /// What was added, changed or deleted after `anchor` (`nil`: everything), at most `limit` samples and
    /// deletions, oldest first, with the anchor to pass next time. Like HealthKit's anchored query, an
    /// anchor is opaque text the source alone interprets.
    /// - Throws: whatever the source throws; the synchronizer keeps its previous anchor.
    func changes(since anchor: String?, limit: Int) async throws -> HealthSourceChanges

    /// Stores `samples` (adding new uuids, replacing changed ones) and deletes the samples with these uuids.
    /// A sample identical to the one held, or a uuid that is not held, is left alone, so applying the same
    /// changes twice changes nothing.
    /// - Throws: whatever the source throws.
    func apply(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws
}

/// One page of a ``HealthSampleSource``'s changes.
public struct HealthSourceChanges: Hashable, Sendable {
    /// Samples added or changed, oldest change first.
    public var samples: [AnyHealthSample]
    /// The uuids of deleted samples.
    public var deletedUUIDs: [String]
    /// The anchor after this page.
    public var anchor: String
    /// Whether more changes follow this page.
    public var hasMore: Bool

    /// Creates a page of changes.
    public init(samples: [AnyHealthSample], deletedUUIDs: [String], anchor: String, hasMore: Bool) {
        self.samples = samples
        self.deletedUUIDs = deletedUUIDs
        self.anchor = anchor
        self.hasMore = hasMore
    }
}
