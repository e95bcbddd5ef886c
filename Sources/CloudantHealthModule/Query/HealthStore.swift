public import CloudantStore
public import Foundation

/// The health samples of a document store: queries by type and time, HealthKit-style statistics and workout
/// routes, the way `CareStore` gives access to care entities, over what the ``HealthPlugin`` keeps.
///
/// Samples are written as any entity is (`store.add(_:)`, ``AppleHealthImporter``, ``HealthSynchronizer``);
/// this type reads them. It holds no state of its own, so make one wherever it is needed.
///
/// ```swift
/// let registry = try EntityRegistry(plugins: [HealthPlugin()])
/// let documents = try DocumentStore.open(name: "health", options: StoreOptions(registry: registry))
/// let health = HealthStore(store: documents)
/// let steps = try await health.statistics(ofType: "HKQuantityTypeIdentifierStepCount", from: june1, to: july1, by: .day)
/// ```
public struct HealthStore: Sendable {
    /// The document store holding the health documents.
    public let store: DocumentStore

    /// Reads the health samples of `store`, opened with a registry that has the ``HealthPlugin``.
    public init(store: DocumentStore) {
        self.store = store
    }

    /// Starts a query over one family of health samples (the original's `collection(healthKitSampleType:)`).
    ///
    /// ```swift
    /// let samples = try await health.collection(healthKitSampleType: .quantity)
    ///     .where(typeIdentifier: "HKQuantityTypeIdentifierHeartRate")
    ///     .where(startDateIn: DateInterval(start: june1, end: july1))
    ///     .sort(ascending: "startDate")
    ///     .getSamples()
    /// ```
    /// Conditions on `typeIdentifier` and `startDate` use ``HealthPlugin/sampleIndex``.
    public func collection(healthKitSampleType: HealthSampleType, fields: [String]? = nil) -> CollectionQuery {
        store.collection(healthKitSampleType: healthKitSampleType, fields: fields)
    }

    /// Every sample of one HealthKit type, optionally only those starting within `interval`, ordered by
    /// start date: the typed samples, and the ``GenericSample``s kept under that identifier (a type the store
    /// does not model, or a record an earlier version could not type), read as typed samples where this
    /// version can (`GenericSample.typedSample()`).
    ///
    /// ```swift
    /// let steps = try await health.samples(ofType: "HKQuantityTypeIdentifierStepCount", in: lastWeek)
    /// let goals = try await health.samples(ofType: "HKDataTypeSleepDurationGoal")   // generic samples
    /// ```
    /// - Throws: `CloudantError` `.invalidInput` for an empty type identifier, or as
    ///   `CollectionQuery.getSamples()` throws.
    public func samples(ofType typeIdentifier: String, in interval: DateInterval? = nil) async throws -> [AnyHealthSample] {
        try await store.samples(ofType: typeIdentifier, in: interval)
    }

    /// Statistics of one quantity type per hour, day, week or month: sums for cumulative types (steps,
    /// energy), minimum, average and maximum for discrete ones (heart rate), with samples from several
    /// sources merged by `sourcePriority` as the Health app merges them (see ``HealthStatisticsCalculator``).
    ///
    /// ```swift
    /// let daily = try await health.statistics(
    ///     ofType: "HKQuantityTypeIdentifierStepCount", from: june1, to: july1, by: .day,
    ///     timeZone: TimeZone(identifier: "America/Los_Angeles")!)
    /// daily.buckets.map(\.sum)   // one total a day, the Watch's steps counted once with the iPhone's
    /// ```
    ///
    /// Samples are read from a day before `from` (a cumulative sample that began before it counts for its
    /// part inside), and include the generic samples of the type that read as quantities.
    /// - Parameters:
    ///   - typeIdentifier: The quantity type (`HKQuantityTypeIdentifierStepCount`).
    ///   - from: The start of the first bucket.
    ///   - to: The end of the last bucket.
    ///   - interval: The bucket length: hour, day, week (from Monday) or month.
    ///   - unit: the result's unit; the unit most samples are in when `nil`.
    ///   - timeZone: the calendar the buckets follow.
    ///   - sourcePriority: Which source counts where several recorded the same time; the Health app's order by default.
    /// - Throws: `CloudantError` `.invalidInput` when `to` is before `from`, or the type is not a quantity
    ///   type; `.incompatibleUnits` when `unit` measures something else; as ``samples(ofType:in:)`` throws.
    public func statistics(
        ofType typeIdentifier: String, from: Date, to: Date, by interval: HealthStatisticsInterval,
        unit: HealthUnit? = nil, timeZone: TimeZone = .gmt, sourcePriority: HealthSourcePriority = .default
    ) async throws -> HealthStatistics {
        try await store.statistics(
            ofType: typeIdentifier, from: from, to: to, by: interval, unit: unit, timeZone: timeZone,
            sourcePriority: sourcePriority)
    }

    /// A workout, found by its document id or its HealthKit uuid, and the points of all its routes in time
    /// order (a workout paused and resumed may have several route samples).
    ///
    /// ```swift
    /// let (workout, points) = try await health.route(ofWorkout: "6F1C2B1E-0E52-4C43-9D0E-0A8E7A4C9F10")
    /// let gpx = GPXRoute(name: workout.activityType, locations: points).gpxData()
    /// ```
    /// - Throws: `CloudantError` `.notFound` when no workout has that id or uuid, or it has
    ///   no route.
    public func route(ofWorkout workout: String) async throws -> (workout: WorkoutSample, locations: [RouteLocation]) {
        try await store.route(ofWorkout: workout)
    }
}
