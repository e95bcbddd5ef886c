public import CloudantCore
public import Foundation

/// One activity of a workout (iOS 16+ `HKWorkoutActivity`): a leg of a multisport workout, or an interval of
/// a custom workout, with its own events, statistics and metadata (`<WorkoutActivity>` in exports).
///
/// ```swift
/// for leg in triathlon.activities { print(leg.duration, leg.statistics.map(\.typeIdentifier)) }
/// ```
public struct WorkoutActivity: Codable, Hashable, Sendable {
    /// The activity's uuid as the export writes it, when it does.
    public var uuid: String?
    /// When the activity starts.
    public var startDate: Date
    /// When it ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
    /// Active duration in seconds, when written.
    public var duration: Double?
    /// The activity's own events.
    public var events: [WorkoutEvent]
    /// The activity's own statistics.
    public var statistics: [WorkoutStatistics]
    /// The activity's metadata, typed.
    public var metadata: [String: JSONValue]

    /// Creates an activity.
    public init(
        uuid: String? = nil, startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        duration: Double? = nil, events: [WorkoutEvent] = [], statistics: [WorkoutStatistics] = [],
        metadata: [String: JSONValue] = [:]
    ) {
        self.uuid = uuid
        self.startDate = startDate
        self.endDate = endDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.duration = duration
        self.events = events
        self.statistics = statistics
        self.metadata = metadata
    }
}
