public import CloudantCore
public import Foundation

/// The timestamped locations of a workout (`HKWorkoutRoute`), stored as an `HKWorkoutRoute` document.
/// The original kept only a point count.
///
/// ```swift
/// let route = try GPXRoute(parsing: gpxData).routeSample(uuid: "…", workoutID: run.id)
/// route.summary.distance   // metres, along the track
/// ```
public typealias WorkoutRouteSample = HealthSampleOf<WorkoutRouteSampleValues>

/// A route's own members.
public struct WorkoutRouteSampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.workoutRoute
    /// The type identifier every sample of the family carries, which a stored document may leave out.
    public static var defaultTypeIdentifier: String? { WorkoutRouteSample.routeTypeIdentifier }
    /// The workout the route belongs to, if known.
    public var workoutID: String?
    /// The locations in time order.
    public var locations: [RouteLocation]
}

extension WorkoutRouteSample {
    /// The type identifier every route carries.
    public static var routeTypeIdentifier: String { "HKWorkoutRouteTypeIdentifier" }

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
