internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// Statistics of quantity samples, as HealthKit's statistics queries compute them.
extension DocumentStore {
    /// The work of `HealthStore.statistics(ofType:from:to:by:unit:timeZone:sourcePriority:)`, which documents it.
    func statistics(
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
