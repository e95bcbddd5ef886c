public import CloudantCore
public import Foundation

/// Something that happened during a workout (`HKWorkoutEvent`): a pause, a lap, a segment, a marker.
public struct WorkoutEvent: Codable, Hashable, Sendable {
    /// HealthKit's event type name (`HKWorkoutEventTypePause`, `HKWorkoutEventTypeSegment`).
    public var type: String
    /// When it happened (the start of its interval).
    public var date: Date
    /// How long it lasted in seconds; zero for instantaneous events.
    public var duration: Double
    /// HealthKit metadata, any JSON value per key.
    public var metadata: [String: JSONValue]

    /// Creates a workout event.
    public init(type: String, date: Date, duration: Double = 0, metadata: [String: JSONValue] = [:]) {
        self.type = type
        self.date = date
        self.duration = duration
        self.metadata = metadata
    }
}

/// The statistics of one quantity type over a workout (iOS 16+ `HKWorkout.allStatistics`), for example the
/// average and maximum heart rate or the summed active energy.
public struct WorkoutStatistics: Codable, Hashable, Sendable {
    /// The quantity type identifier the statistics are about.
    public var typeIdentifier: String
    /// The interval covered.
    public var startDate: Date
    /// The interval's end.
    public var endDate: Date
    /// The average, for discrete types.
    public var average: Double?
    /// The minimum, for discrete types.
    public var minimum: Double?
    /// The maximum, for discrete types.
    public var maximum: Double?
    /// The sum, for cumulative types.
    public var sum: Double?
    /// The HealthKit unit string of the values.
    public var unit: String?

    /// Creates workout statistics.
    public init(
        typeIdentifier: String, startDate: Date, endDate: Date, average: Double? = nil, minimum: Double? = nil,
        maximum: Double? = nil, sum: Double? = nil, unit: String? = nil
    ) {
        self.typeIdentifier = typeIdentifier
        self.startDate = startDate
        self.endDate = endDate
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.sum = sum
        self.unit = unit
    }
}
