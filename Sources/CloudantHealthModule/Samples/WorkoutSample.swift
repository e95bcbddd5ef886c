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
        events: [WorkoutEvent] = [], statistics: [WorkoutStatistics] = [], routeIDs: [String] = [],
        creationDate: Date? = nil, source: HealthSource? = nil, device: HealthDevice? = nil,
        metadata: [String: JSONValue] = [:], revId: String? = nil
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
        self.routeIDs = routeIDs
        self.creationDate = creationDate
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
    }
}
