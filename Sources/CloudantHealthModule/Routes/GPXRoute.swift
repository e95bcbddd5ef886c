internal import CloudantCore
public import Foundation

/// A GPX 1.0/1.1 track read or written with libxml2: the format Apple Health exports workout routes in.
///
/// ```swift
/// let route = try GPXRoute(parsing: Data(contentsOf: gpxURL))
/// route.summary.distance                               // metres
/// let sample = route.routeSample(uuid: "…", workoutID: workout.id)
/// let gpx = GPXRoute(name: "Morning run", locations: sample.locations).gpxData()
/// ```
///
/// Apple's `<extensions>` (`speed`, `course`, `hAcc`, `vAcc`) map to ``RouteLocation``'s speed, course and
/// accuracies; all track segments are joined in order.
public struct GPXRoute: Hashable, Sendable {
    /// The track's name, if any.
    public var name: String?
    /// The track points in document order.
    public var locations: [RouteLocation]

    /// Creates a route.
    public init(name: String? = nil, locations: [RouteLocation]) {
        self.name = name
        self.locations = locations
    }

    /// Reads a GPX document.
    /// - Throws: `CloudantError` `.invalidXML` for malformed or hostile XML (see ``XMLParseLimits``);
    ///   `.invalidGPX` when the root is not `<gpx>` or a track point lacks a valid `lat`, `lon` or `time`
    ///   (`itemIndex` names the point).
    public init(parsing data: Data, limits: XMLParseLimits = XMLParseLimits()) throws {
        self = try GPXStreamReader.read(data, limits: limits)
    }

    /// Reads a GPX document through libxml2's tree: what ``GPXStreamReader`` reads without one, and what it
    /// falls back to for a document whose DTD declares entities.
    static func readTree(_ data: Data, limits: XMLParseLimits) throws -> GPXRoute {
        try XMLDocumentReader.withRoot(of: data, limits: limits) { root, _ in try Self.read(root) }
    }

    /// Distance and duration of the track.
    public var summary: RouteSummary { RouteSummary(locations) }

    /// A workout route sample with these locations; start and end are the first and last point's times.
    public func routeSample(id: String? = nil, uuid: String, workoutID: String? = nil, utcOffset: Int? = nil)
        -> WorkoutRouteSample
    {
        WorkoutRouteSample(id: id, uuid: uuid, workoutID: workoutID, locations: locations, startUTCOffset: utcOffset)
    }

    private static func read(_ root: XMLElementView) throws -> GPXRoute {
        guard root.name == "gpx" else { throw notGPX(root: root.name) }
        var locations: [RouteLocation] = []
        let tracks = root.children(named: "trk")
        for point in tracks.flatMap({ $0.children(named: "trkseg") }).flatMap({ $0.children(named: "trkpt") }) {
            locations.append(try location(point, index: locations.count))
        }
        return GPXRoute(name: tracks.first?.child("name")?.text, locations: locations)
    }

    /// The refusal of a document whose root is not `<gpx>`.
    static func notGPX(root: String) -> CloudantError {
        CloudantError(
            .invalidGPX, "The root element is <\(root)>, not <gpx>; this is not a GPX file.", context: .init(field: root))
    }

    private static func location(_ point: XMLElementView, index: Int) throws -> RouteLocation {
        let extensions = point.child("extensions")
        func number(_ element: XMLElementView?) -> Double? { element?.doubleText }
        return try location(
            latitude: point.doubleAttribute("lat"), longitude: point.doubleAttribute("lon"), time: point.child("time")?.text,
            elevation: number(point.child("ele")), horizontalAccuracy: number(extensions?.child("hAcc")),
            verticalAccuracy: number(extensions?.child("vAcc")), speed: number(extensions?.child("speed")),
            course: number(extensions?.child("course")), index: index)
    }

    /// A track point from what its element holds (`index` names it in errors).
    static func location(
        latitude: Double?, longitude: Double?, time: String?, elevation: Double?, horizontalAccuracy: Double?,
        verticalAccuracy: Double?, speed: Double?, course: Double?, index: Int
    ) throws -> RouteLocation {
        guard let latitude, abs(latitude) <= 90, let longitude, abs(longitude) <= 180 else {
            throw CloudantError(
                .invalidGPX, "A track point needs lat in ±90 and lon in ±180.", context: .init(field: "trkpt", itemIndex: index))
        }
        guard let time = time.flatMap(LocalTimestamp.init(parsing:)) else {
            throw CloudantError(
                .invalidGPX, "A track point needs an ISO 8601 <time>; a route sample is timestamped.",
                context: .init(field: "trkpt/time", itemIndex: index))
        }
        return RouteLocation(
            timestamp: time.date, latitude: latitude, longitude: longitude, altitude: elevation,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy, speed: speed, course: course)
    }
}
