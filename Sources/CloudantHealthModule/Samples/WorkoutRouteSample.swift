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
    /// The workout the route belongs to, if known.
    public var workoutID: String?
    /// The locations in time order.
    public var locations: [RouteLocation]

    /// Creates a route; `id` defaults to `uuid`, and start and end default to the first and last location.
    public init(
        id: String? = nil, uuid: String, workoutID: String? = nil, locations: [RouteLocation],
        startDate: Date? = nil, endDate: Date? = nil, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        revId: String? = nil
    ) {
        let start = startDate ?? locations.first?.timestamp ?? Date(timeIntervalSince1970: 0)
        fields = SampleFields(
            id: id, uuid: uuid, typeIdentifier: Self.routeTypeIdentifier, startDate: start,
            endDate: endDate ?? locations.last?.timestamp ?? start, startUTCOffset: startUTCOffset,
            endUTCOffset: endUTCOffset, source: source, device: device, metadata: metadata, revId: revId)
        self.workoutID = workoutID
        self.locations = locations
    }

    /// Distance and duration of the route.
    public var summary: RouteSummary { RouteSummary(locations) }
}

extension WorkoutRouteSample {
    private enum CodingKeys: String, CodingKey {
        case workoutID, locations
    }

    /// Reads the flat JSON: the ``SampleFields`` members and this family's own.
    public init(from decoder: any Decoder) throws {
        fields = try SampleFields(from: decoder, typeIdentifier: Self.routeTypeIdentifier)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        workoutID = try container.decodeIfPresent(String.self, forKey: .workoutID)
        locations = try container.decode([RouteLocation].self, forKey: .locations)
    }

    /// Writes the flat JSON, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(workoutID, forKey: .workoutID)
        try container.encode(locations, forKey: .locations)
    }
}
