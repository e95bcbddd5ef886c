public import CloudantCore
internal import Foundation

/// One day of the Activity rings (`HKActivitySummary`): move energy, move time, exercise minutes and stand
/// hours, each with its goal, stored as an `HKActivitySummary` document.
///
/// ```swift
/// let day = CalendarDay(parsing: "2024-03-05")!
/// let summary = ActivitySummarySample(
///     day: day, activeEnergyBurned: HealthQuantity(value: 512.3, unit: .kilocalorie),
///     activeEnergyBurnedGoal: HealthQuantity(value: 600, unit: .kilocalorie))
/// summary.id == ActivitySummarySample.uuid(for: day)   // one document per day, whoever writes it
/// ```
///
/// The day is a calendar day with no time zone (the export writes none). So that days range-query like any
/// other sample, ``SampleFields/startDate`` and ``SampleFields/endDate`` are the day's midnights in UTC
/// (``CalendarDay/floatingInterval``) and the offsets are `nil`; use ``CalendarDay/interval(in:)`` for the day
/// in a particular time zone.
/// Every value is optional: older exports lack the move-time and goal attributes, and absent is not zero.
public typealias ActivitySummarySample = HealthSampleOf<ActivitySummarySampleValues>

/// An activity summary's own members.
public struct ActivitySummarySampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.activitySummary
    /// The calendar day summarised.
    public var day: CalendarDay
    /// Active energy burned (the Move ring), in the unit the export wrote (`Cal`, which is `kcal`).
    public var activeEnergyBurned: HealthQuantity?
    /// The Move goal, in the same unit.
    public var activeEnergyBurnedGoal: HealthQuantity?
    /// Move minutes, for users whose Move ring counts time (`min`).
    public var appleMoveTime: HealthQuantity?
    /// The Move-time goal (`min`).
    public var appleMoveTimeGoal: HealthQuantity?
    /// Exercise minutes (the Exercise ring, `min`).
    public var appleExerciseTime: HealthQuantity?
    /// The Exercise goal (`min`).
    public var appleExerciseTimeGoal: HealthQuantity?
    /// Hours with at least a minute of standing (the Stand ring, `count`).
    public var appleStandHours: HealthQuantity?
    /// The Stand goal (`count`).
    public var appleStandHoursGoal: HealthQuantity?
}

extension ActivitySummarySample {
    /// The type identifier every activity summary carries (HealthKit's `HKActivitySummaryType`).
    public static var activitySummaryTypeIdentifier: String { "HKActivitySummaryTypeIdentifier" }

    /// Creates the summary of `day`; `uuid` defaults to ``uuid(for:)`` and `id` to the uuid.
    public init(
        id: String? = nil, uuid: String? = nil, day: CalendarDay, activeEnergyBurned: HealthQuantity? = nil,
        activeEnergyBurnedGoal: HealthQuantity? = nil, appleMoveTime: HealthQuantity? = nil,
        appleMoveTimeGoal: HealthQuantity? = nil, appleExerciseTime: HealthQuantity? = nil,
        appleExerciseTimeGoal: HealthQuantity? = nil, appleStandHours: HealthQuantity? = nil,
        appleStandHoursGoal: HealthQuantity? = nil, source: HealthSource? = nil, device: HealthDevice? = nil,
        metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        let uuid = uuid ?? Self.uuid(for: day)
        let interval = day.floatingInterval
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: Self.activitySummaryTypeIdentifier, startDate: interval.start,
                endDate: interval.end, source: source, device: device, metadata: metadata, revId: revId),
            values: Values(
                day: day, activeEnergyBurned: activeEnergyBurned, activeEnergyBurnedGoal: activeEnergyBurnedGoal,
                appleMoveTime: appleMoveTime, appleMoveTimeGoal: appleMoveTimeGoal,
                appleExerciseTime: appleExerciseTime, appleExerciseTimeGoal: appleExerciseTimeGoal,
                appleStandHours: appleStandHours, appleStandHoursGoal: appleStandHoursGoal))
    }

    /// The uuid of the summary of `day`: derived from the day alone, so importing an export again, or a
    /// later export, names the same document.
    public static func uuid(for day: CalendarDay) -> String {
        // The canonical digest of `{"HKActivitySummary": "YYYY-MM-DD"}`, uppercase, in 8-4-4-4-12 groups.
        let digest = CanonicalJSONDigest.of(body: ["HKActivitySummary": .string(day.description)])
        let hex = Array(digest.uppercased())
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }
}
