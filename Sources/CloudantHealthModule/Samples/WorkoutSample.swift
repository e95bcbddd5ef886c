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
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// HealthKit's uuid for the workout.
    public var uuid: String
    /// Always ``workoutTypeIdentifier``; kept so every sample is queried the same way.
    public var typeIdentifier: String
    /// HealthKit's activity type name (`HKWorkoutActivityTypeRunning`).
    public var activityType: String
    /// When the workout starts.
    public var startDate: Date
    /// When it ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
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
    /// When it was created on the device, if known.
    public var creationDate: Date?
    /// The app or device that wrote it.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// HealthKit metadata, any JSON value per key.
    public var metadata: [String: JSONValue]
    /// The revision the workout was read at.
    public var revId: String?

    /// Creates a workout; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, activityType: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, duration: Double,
        totalEnergyBurned: HealthQuantity? = nil, totalDistance: HealthQuantity? = nil,
        events: [WorkoutEvent] = [], statistics: [WorkoutStatistics] = [], activities: [WorkoutActivity] = [],
        otherElements: [JSONValue] = [], routeIDs: [String] = [], creationDate: Date? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = Self.workoutTypeIdentifier
        self.activityType = activityType
        self.startDate = startDate
        self.endDate = endDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.duration = duration
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        self.events = events
        self.statistics = statistics
        self.activities = activities
        self.otherElements = otherElements
        self.routeIDs = routeIDs
        self.creationDate = creationDate
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
    }
}

extension WorkoutSample {
    private enum CodingKeys: String, CodingKey {
        case id, uuid, typeIdentifier, activityType, startDate, endDate, startUTCOffset, endUTCOffset, duration
        case totalEnergyBurned, totalDistance, events, statistics, activities, otherElements, routeIDs, creationDate
        case source, device, metadata, revId
    }

    /// Decodes a workout; `activities` and `otherElements`, which documents written before iOS 16's shape was
    /// read lack, default to empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), uuid: try container.decode(String.self, forKey: .uuid),
            activityType: try container.decode(String.self, forKey: .activityType),
            startDate: try container.decode(Date.self, forKey: .startDate),
            endDate: try container.decode(Date.self, forKey: .endDate),
            startUTCOffset: try container.decodeIfPresent(Int.self, forKey: .startUTCOffset),
            endUTCOffset: try container.decodeIfPresent(Int.self, forKey: .endUTCOffset),
            duration: try container.decode(Double.self, forKey: .duration),
            totalEnergyBurned: try container.decodeIfPresent(HealthQuantity.self, forKey: .totalEnergyBurned),
            totalDistance: try container.decodeIfPresent(HealthQuantity.self, forKey: .totalDistance),
            events: try container.decodeIfPresent([WorkoutEvent].self, forKey: .events) ?? [],
            statistics: try container.decodeIfPresent([WorkoutStatistics].self, forKey: .statistics) ?? [],
            activities: try container.decodeIfPresent([WorkoutActivity].self, forKey: .activities) ?? [],
            otherElements: try container.decodeIfPresent([JSONValue].self, forKey: .otherElements) ?? [],
            routeIDs: try container.decodeIfPresent([String].self, forKey: .routeIDs) ?? [],
            creationDate: try container.decodeIfPresent(Date.self, forKey: .creationDate),
            source: try container.decodeIfPresent(HealthSource.self, forKey: .source),
            device: try container.decodeIfPresent(HealthDevice.self, forKey: .device),
            metadata: try container.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:],
            revId: try container.decodeIfPresent(String.self, forKey: .revId))
        typeIdentifier = try container.decodeIfPresent(String.self, forKey: .typeIdentifier) ?? Self.workoutTypeIdentifier
    }
}
