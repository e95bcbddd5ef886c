public import CloudantCore
public import Foundation

/// An activity (`HKWorkout`) with its totals, events and per-type statistics, stored as an `HKWorkout`
/// document. The original store had no workout type at all.
///
/// ```swift
/// let run = WorkoutSample(uuid: "…", activityType: "HKWorkoutActivityTypeRunning", startDate: s, endDate: e,
///     duration: 1800, totalDistance: HealthQuantity(value: 5, unit: .kilometer))
/// ```
public struct WorkoutSample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.workout
    /// The type identifier every workout carries.
    public static let workoutTypeIdentifier = "HKWorkoutTypeIdentifier"
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// HealthKit's activity type name (`HKWorkoutActivityTypeRunning`).
    public var activityType: String
    /// Active duration in seconds (pauses excluded), which can be shorter than the interval.
    public var duration: Double
    /// Total energy burned, when recorded.
    public var totalEnergyBurned: HealthQuantity?
    /// Total distance, when recorded.
    public var totalDistance: HealthQuantity?
    /// Pauses, resumes, laps, segments and markers.
    public var events: [WorkoutEvent]
    /// Per-quantity-type statistics (iOS 16+ `<WorkoutStatistics>`).
    public var statistics: [WorkoutStatistics]
    /// The workout's activities (iOS 16+ `<WorkoutActivity>`): the legs of a multisport workout.
    public var activities: [WorkoutActivity]
    /// Child elements the store does not model (iOS 18's `<WorkoutZoneGroup>`), kept as
    /// `{"element", "attributes", "children"}` objects with typed attribute values.
    public var otherElements: [JSONValue]
    /// The ids of the workout's route documents.
    public var routeIDs: [String]

    /// Creates a workout; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, activityType: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, duration: Double,
        totalEnergyBurned: HealthQuantity? = nil, totalDistance: HealthQuantity? = nil,
        events: [WorkoutEvent] = [], statistics: [WorkoutStatistics] = [], activities: [WorkoutActivity] = [],
        otherElements: [JSONValue] = [], routeIDs: [String] = [], creationDate: Date? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        fields = SampleFields(
            id: id, uuid: uuid, typeIdentifier: Self.workoutTypeIdentifier, startDate: startDate, endDate: endDate,
            startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate, source: source,
            device: device, metadata: metadata, revId: revId)
        self.activityType = activityType
        self.duration = duration
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        self.events = events
        self.statistics = statistics
        self.activities = activities
        self.otherElements = otherElements
        self.routeIDs = routeIDs
    }
}

extension WorkoutSample {
    private enum CodingKeys: String, CodingKey {
        case activityType, duration, totalEnergyBurned, totalDistance, events, statistics, activities, otherElements
        case routeIDs
    }

    /// Reads the flat JSON: the ``SampleFields`` members and this family's own.
    public init(from decoder: any Decoder) throws {
        fields = try SampleFields(from: decoder, typeIdentifier: Self.workoutTypeIdentifier)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        activityType = try container.decode(String.self, forKey: .activityType)
        duration = try container.decode(Double.self, forKey: .duration)
        totalEnergyBurned = try container.decodeIfPresent(HealthQuantity.self, forKey: .totalEnergyBurned)
        totalDistance = try container.decodeIfPresent(HealthQuantity.self, forKey: .totalDistance)
        events = try container.decodeIfPresent([WorkoutEvent].self, forKey: .events) ?? []
        statistics = try container.decodeIfPresent([WorkoutStatistics].self, forKey: .statistics) ?? []
        activities = try container.decodeIfPresent([WorkoutActivity].self, forKey: .activities) ?? []
        otherElements = try container.decodeIfPresent([JSONValue].self, forKey: .otherElements) ?? []
        routeIDs = try container.decodeIfPresent([String].self, forKey: .routeIDs) ?? []
    }

    /// Writes the flat JSON, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(activityType, forKey: .activityType)
        try container.encode(duration, forKey: .duration)
        try container.encodeIfPresent(totalEnergyBurned, forKey: .totalEnergyBurned)
        try container.encodeIfPresent(totalDistance, forKey: .totalDistance)
        try container.encode(events, forKey: .events)
        try container.encode(statistics, forKey: .statistics)
        try container.encode(activities, forKey: .activities)
        try container.encode(otherElements, forKey: .otherElements)
        try container.encode(routeIDs, forKey: .routeIDs)
    }
}
