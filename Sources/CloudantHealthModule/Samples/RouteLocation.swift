public import Foundation

/// One point of a workout route (`CLLocation`): position, altitude, accuracies, speed and course.
public struct RouteLocation: Codable, Hashable, Sendable {
    /// When the point was recorded.
    public var timestamp: Date
    /// Latitude in degrees (WGS 84).
    public var latitude: Double
    /// Longitude in degrees (WGS 84).
    public var longitude: Double
    /// Altitude in metres above sea level, when known.
    public var altitude: Double?
    /// Horizontal accuracy in metres, when known.
    public var horizontalAccuracy: Double?
    /// Vertical accuracy in metres, when known.
    public var verticalAccuracy: Double?
    /// Speed in metres per second, when known.
    public var speed: Double?
    /// Course in degrees from true north, when known.
    public var course: Double?

    /// Creates a route location.
    public init(
        timestamp: Date, latitude: Double, longitude: Double, altitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, speed: Double? = nil,
        course: Double? = nil
    ) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
    }
}
