internal import CloudantCore
public import CloudantStore
public import Foundation

/// Statistics of quantity samples, as HealthKit's statistics queries compute them.
extension DocumentStore {
    /// Statistics of one quantity type per hour, day, week or month: sums for cumulative types (steps,
    /// energy), minimum, average and maximum for discrete ones (heart rate), with samples from several
    /// sources merged by `sourcePriority` as the Health app merges them (see ``HealthStatisticsCalculator``).
    ///
    /// ```swift
    /// let daily = try await store.statistics(
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
        guard to >= from else {
            throw CloudantError(.invalidInput, "The end must not be before the start.", context: .init(field: "to"))
        }
        let family = HealthSampleType(typeIdentifier: typeIdentifier)
        guard family == .quantity || family == nil else {
            throw CloudantError(
                .invalidInput, "Statistics are for quantity types (HKQuantityTypeIdentifier…); \(typeIdentifier) is not one.",
                context: .init(field: "type"))
        }
        let read = DateInterval(start: from.addingTimeInterval(-86_400), end: to)
        let samples = try await statisticsSamples(ofType: typeIdentifier, in: read)
        return try HealthStatisticsCalculator.statistics(
            of: samples, typeIdentifier: typeIdentifier, in: DateInterval(start: from, end: to), by: interval, unit: unit,
            timeZone: timeZone, sourcePriority: sourcePriority)
    }
}
