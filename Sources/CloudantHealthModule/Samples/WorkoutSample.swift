public import CloudantCore
public import Foundation

/// An activity (`HKWorkout`) with its totals, events and per-type statistics, stored as an `HKWorkout`
/// document. The original store had no workout type at all.
///
/// ```swift
/// let run = WorkoutSample(uuid: "…", activityType: "HKWorkoutActivityTypeRunning", startDate: s, endDate: e,
///     duration: 1800, totalDistance: HealthQuantity(value: 5, unit: .kilometer))
/// ```
public typealias WorkoutSample = HealthSampleOf<WorkoutSampleValues>

/// A workout's own members.
public struct WorkoutSampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.workout
    /// The type identifier every sample of the family carries, which a stored document may leave out.
    public static var defaultTypeIdentifier: String? { WorkoutSample.workoutTypeIdentifier }
    /// HealthKit's activity type name (`HKWorkoutActivityTypeRunning`).
    public var activityType: String
    /// Active duration in seconds (pauses excluded), which can be shorter than the interval.
    public var duration: Double
    /// Total energy burned, when recorded.
    public var totalEnergyBurned: HealthQuantity?
    /// Total distance, when recorded.
    public var totalDistance: HealthQuantity?
    /// Pauses, resumes, laps, segments and markers.
    @EmptyWhenAbsent public var events: [WorkoutEvent]
    /// Per-quantity-type statistics (iOS 16+ `<WorkoutStatistics>`).
    @EmptyWhenAbsent public var statistics: [WorkoutStatistics]
    /// The workout's activities (iOS 16+ `<WorkoutActivity>`): the legs of a multisport workout.
    @EmptyWhenAbsent public var activities: [WorkoutActivity]
    /// Child elements the store does not model (iOS 18's `<WorkoutZoneGroup>`), kept as
    /// `{"element", "attributes", "children"}` objects with typed attribute values.
    @EmptyWhenAbsent public var otherElements: [JSONValue]
    /// The ids of the workout's route documents.
    @EmptyWhenAbsent public var routeIDs: [String]
}

extension WorkoutSample {
    /// The type identifier every workout carries.
    public static var workoutTypeIdentifier: String { "HKWorkoutTypeIdentifier" }

    /// Active duration in seconds (pauses excluded), which can be shorter than the interval; this, not the
    /// interval's length every sample has, is a workout's `duration`.
    public var duration: Double {
        get { values.duration }
        set { values.duration = newValue }
    }

    /// Creates a workout; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, activityType: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, duration: Double,
        totalEnergyBurned: HealthQuantity? = nil, totalDistance: HealthQuantity? = nil,
        events: [WorkoutEvent] = [], statistics: [WorkoutStatistics] = [], activities: [WorkoutActivity] = [],
        otherElements: [JSONValue] = [], routeIDs: [String] = [], creationDate: Date? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: Self.workoutTypeIdentifier, startDate: startDate,
                endDate: endDate, startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset,
                creationDate: creationDate, source: source, device: device, metadata: metadata, revId: revId),
            values: Values(
                activityType: activityType, duration: duration, totalEnergyBurned: totalEnergyBurned,
                totalDistance: totalDistance, events: events, statistics: statistics, activities: activities,
                otherElements: otherElements, routeIDs: routeIDs))
    }
}
