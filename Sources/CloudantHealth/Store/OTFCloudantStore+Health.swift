internal import CloudantCore
public import CloudantHealthModule
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// OTFCloudantStore's name for the sample families it queried by (it knew `category`, `quantity` and
/// `correlation`; the rest are new).
public typealias OTFHealthSampleType = HealthSampleType

/// The Health flavour of the drop-in store: queries by sample family and `getSamples`, as the original's
/// `collection(healthKitSampleType:fields:)` and `getSamples(callbackQueue:completion:)`.
///
/// ```swift
/// HealthStore(store: store).collection(healthKitSampleType: .quantity)
///     .where(propertyName: "typeIdentifier", value: "HKQuantityTypeIdentifierHeartRate")
///     .getSamples { result in … }          // Result<[AnyHealthSample], OTFCloudantError>
/// ```
extension OTFCloudantStore {
    /// Starts a query over the samples of one family. Unlike the original, `fields` is honoured, and the
    /// family's own kind is queried (the original stored every family as `OTFCloudantSample`; convert such
    /// documents with `migrateOTFSamples`).
    public func collection(healthKitSampleType: OTFHealthSampleType, fields: [String]? = nil) -> OTFCloudantQuery {
        OTFCloudantQuery(
            store: self, collectionQuery: HealthStore(store: documentStore).collection(healthKitSampleType: healthKitSampleType, fields: fields))
    }

    /// Creates the health samples' index once, unless the store was opened with `HealthPlugin`.
    func prepareHealth() async throws {
        let store = documentStore
        let preparation = companion(OncePerStore<HealthPlugin>.self) { OncePerStore() }
        try await preparation.once {
            guard !store.options.registry.installedPlugins.contains(HealthPlugin.pluginName) else { return }
            _ = try await store.createIndex(HealthPlugin.sampleIndexOverEverySample)
        }
    }
}

/// The original's query shape for HealthKit sample types.
extension OTFCloudantQuery {
    /// Runs a query over a sample family and decodes each sample as its family (the original returned
    /// `[HKSample]`; on Linux the samples are `AnyHealthSample`).
    /// - Throws: `OTFCloudantError.invalidValue(reason:)` for a query over a kind that is not a
    ///   sample family; `OTFCloudantError.fetchFailed(reason:)` naming a sample that does not decode.
    public func getSamples() async throws(OTFCloudantError) -> [AnyHealthSample] {
        let query = collectionQuery
        let store = self.store
        return try await store.perform(.fetch) {
            try await store.prepareHealth()
            return try await query.getSamples()
        }
    }

    /// Runs the query and passes the samples to `completion` exactly once, on `callbackQueue`.
    public func getSamples(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[AnyHealthSample], OTFCloudantError>) -> Void
    ) {
        let query = collectionQuery
        let store = self.store
        store.deliver(.fetch, on: callbackQueue, to: completion) {
            try await store.prepareHealth()
            return try await query.getSamples()
        }
    }
}
