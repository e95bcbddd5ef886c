public import Foundation

/// Distance and timing of a sequence of route locations.
///
/// ```swift
/// let summary = RouteSummary(route.locations)
/// summary.distance        // metres along the track (haversine)
/// summary.averageSpeed    // metres per second over the elapsed time
/// ```
public struct RouteSummary: Hashable, Sendable {
    /// The mean Earth radius in metres (IUGG), which the haversine distance uses.
    public static let earthRadius = 6_371_008.8

    /// How many locations were summarised.
    public var pointCount: Int
    /// Metres along the track, summing the great-circle distance between consecutive points.
    public var distance: Double
    /// Seconds from the first to the last point.
    public var duration: TimeInterval
    /// The first point's time.
    public var startDate: Date?
    /// The last point's time.
    public var endDate: Date?
    /// Metres climbed (sum of positive altitude changes), counting only points with an altitude.
    public var elevationGain: Double

    /// Metres per second over ``duration``; `nil` for a route without elapsed time.
    public var averageSpeed: Double? { duration > 0 ? distance / duration : nil }

    /// Summarises locations in the order given.
    public init(_ locations: [RouteLocation]) {
        pointCount = locations.count
        startDate = locations.first?.timestamp
        endDate = locations.last?.timestamp
        if let start = startDate, let end = endDate { duration = end.timeIntervalSince(start) } else { duration = 0 }
        var distance = 0.0
        var gain = 0.0
        for (previous, next) in zip(locations, locations.dropFirst()) {
            distance += Self.haversine(previous, next)
            if let from = previous.altitude, let to = next.altitude, to > from { gain += to - from }
        }
        self.distance = distance
        self.elevationGain = gain
    }

    /// The great-circle distance in metres between two locations.
    public static func haversine(_ a: RouteLocation, _ b: RouteLocation) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2)
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }
}
