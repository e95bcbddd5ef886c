public import CloudantCore
public import Foundation

/// The timestamped locations of a workout (`HKWorkoutRoute`), stored as an `HKWorkoutRoute` document.
/// The original kept only a point count.
///
/// ```swift
/// let route = try GPXRoute(parsing: gpxData).routeSample(uuid: "…", workoutID: run.id)
/// route.summary.distance   // metres, along the track
/// ```
public struct WorkoutRouteSample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.workoutRoute
    /// The type identifier every route carries.
    public static let routeTypeIdentifier = "HKWorkoutRouteTypeIdentifier"
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// HealthKit's uuid for the route.
    public var uuid: String
    /// Always ``routeTypeIdentifier``.
    public var typeIdentifier: String
    /// The workout the route belongs to, if known.
    public var workoutID: String?
    /// The locations in time order.
    public var locations: [RouteLocation]
    /// When the route starts.
    public var startDate: Date
    /// When it ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
    /// The app or device that wrote it.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// HealthKit metadata, any JSON value per key.
    public var metadata: [String: JSONValue]
    /// The revision the route was read at.
    public var revId: String?

    /// Creates a route; `id` defaults to `uuid`, and start and end default to the first and last location.
    public init(
        id: String? = nil, uuid: String, workoutID: String? = nil, locations: [RouteLocation],
        startDate: Date? = nil, endDate: Date? = nil, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = Self.routeTypeIdentifier
        self.workoutID = workoutID
        self.locations = locations
        self.startDate = startDate ?? locations.first?.timestamp ?? Date(timeIntervalSince1970: 0)
        self.endDate = endDate ?? locations.last?.timestamp ?? self.startDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
    }

    /// Distance and duration of the route.
    public var summary: RouteSummary { RouteSummary(locations) }
}
