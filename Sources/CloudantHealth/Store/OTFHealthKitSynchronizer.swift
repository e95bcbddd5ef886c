internal import CloudantCore
public import CloudantHealthModule
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// The original's `OTFHealthKitSynchronizer`: keeps a drop-in store and a health-sample source (HealthKit on
/// a device, another store, an export) in step, in one direction or both.
///
/// ```swift
/// let synchronizer = OTFHealthKitSynchronizer(dataStore: store, healthStore: source)
/// synchronizer.syncWithHealthKit()                                   // both ways
/// let report = try await synchronizer.synchronize(direction: .fromHKToCloudant)
/// ```
///
/// It runs a `HealthSynchronizer`: changes are exchanged page by page from persisted anchors, deletions
/// included, by sample uuid. The original compared every HealthKit sample with the first 30 stored ones, so
/// it uploaded duplicates and never synced deletions.
public final class OTFHealthKitSynchronizer: Sendable {
    /// Which way a sync carries samples, with the original's names.
    public enum OTFSyncDirection: Sendable, Hashable, CaseIterable {
        /// From the store to the health source.
        case fromCloudantToHK
        /// From the health source into the store.
        case fromHKToCloudant
        /// Both ways.
        case biDirection

        var direction: HealthSynchronizer.Direction {
            switch self {
            case .fromCloudantToHK: .toSource
            case .fromHKToCloudant: .fromSource
            case .biDirection: .both
            }
        }
    }

    /// The store synchronised.
    public let dataStore: OTFCloudantStore
    /// The other side.
    public let healthStore: any HealthSampleSource
    private let synchronizer: HealthSynchronizer

    /// Creates a synchronizer, as the original's `init(dataStore:healthStore:)`.
    ///
    /// - Parameters:
    ///   - dataStore: The store.
    ///   - healthStore: The other side (`HealthSampleSource`: HealthKit on a device, `StoreHealthSampleSource`
    ///     for another store, `InMemoryHealthSampleSource` in tests).
    ///   - name: Names this pairing's anchors, so one store can sync with several sources.
    public init(dataStore: OTFCloudantStore, healthStore: any HealthSampleSource, name: String = "healthkit") {
        self.dataStore = dataStore
        self.healthStore = healthStore
        synchronizer = HealthSynchronizer(store: dataStore.documentStore, source: healthStore, name: name)
    }

    /// Runs one sync in `direction`.
    /// - Returns: How many samples and deletions went each way.
    /// - Throws: `OTFCloudantError.remoteSynchronizationFailed(reason:)` when the source or the
    ///   store fails (pages already done stay done; run again to resume); `OTFCloudantError.timedOut(reason:)`
    ///   past the store's timeout.
    @discardableResult
    public func synchronize(direction: OTFSyncDirection = .biDirection) async throws(OTFCloudantError) -> HealthSyncReport {
        let synchronizer = synchronizer
        return try await dataStore.perform(.synchronize) { try await synchronizer.synchronize(direction: direction.direction) }
    }

    /// Starts one sync in `direction`, as the original's `syncWithHealthKit(direction:)`, and passes its
    /// result to `completion` exactly once, on `callbackQueue`.
    public func syncWithHealthKit(
        direction: OTFSyncDirection = .biDirection, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<HealthSyncReport, OTFCloudantError>) -> Void)? = nil
    ) {
        let synchronizer = synchronizer
        dataStore.deliver(.synchronize, on: callbackQueue, to: completion) {
            try await synchronizer.synchronize(direction: direction.direction)
        }
    }
}

/// The original's name for the sync direction.
public typealias OTFSyncDirection = OTFHealthKitSynchronizer.OTFSyncDirection
