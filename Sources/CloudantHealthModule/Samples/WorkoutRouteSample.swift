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
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// The route's own members, each also a property of the sample (`route.locations`).
    public var values: Values

    /// A route's own members.
    public struct Values: Codable, Hashable, Sendable {
        /// The workout the route belongs to, if known.
        public var workoutID: String?
        /// The locations in time order.
        public var locations: [RouteLocation]
    }

    /// The type identifier every route carries, which a stored document may leave out.
    public static var defaultTypeIdentifier: String? { routeTypeIdentifier }

    /// Creates a route from its fields and own members.
    public init(fields: SampleFields, values: Values) {
        self.fields = fields
        self.values = values
    }

    /// Creates a route; `id` defaults to `uuid`, and start and end default to the first and last location.
    public init(
        id: String? = nil, uuid: String, workoutID: String? = nil, locations: [RouteLocation],
        startDate: Date? = nil, endDate: Date? = nil, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        revId: String? = nil
    ) {
        let start = startDate ?? locations.first?.timestamp ?? Date(timeIntervalSince1970: 0)
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: Self.routeTypeIdentifier, startDate: start,
                endDate: endDate ?? locations.last?.timestamp ?? start, startUTCOffset: startUTCOffset,
                endUTCOffset: endUTCOffset, source: source, device: device, metadata: metadata, revId: revId),
            values: Values(workoutID: workoutID, locations: locations))
    }

    /// Distance and duration of the route.
    public var summary: RouteSummary { RouteSummary(values.locations) }
}
