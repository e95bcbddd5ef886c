@preconcurrency internal import CLibXML2
internal import CloudantBase
public import Foundation

extension GPXRoute {
    /// The route as a GPX 1.1 document in Apple Health's layout; the track name is escaped by libxml2's
    /// `xmlEncodeSpecialChars`, and every other value is a number or a timestamp.
    ///
    /// ```swift
    /// try GPXRoute(name: "Run", locations: route.locations).gpxData().write(to: url)
    /// ```
    public func gpxData(creator: String = "OTFCloudantStore") -> Data {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<gpx version=\"1.1\" creator=\"\(Self.escaped(creator))\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        text += "  <trk>\n"
        if let name { text += "    <name>\(Self.escaped(name))</name>\n" }
        text += "    <trkseg>\n"
        for location in locations {
            text += "      <trkpt lon=\"\(Self.decimal(location.longitude))\" lat=\"\(Self.decimal(location.latitude))\">"
            if let altitude = location.altitude { text += "<ele>\(Self.decimal(altitude))</ele>" }
            text += "<time>\(Self.isoTime(location.timestamp))</time>"
            let extras = [
                ("speed", location.speed), ("course", location.course), ("hAcc", location.horizontalAccuracy),
                ("vAcc", location.verticalAccuracy),
            ].compactMap { name, value in value.map { (name, $0) } }
            if !extras.isEmpty {
                text += "<extensions>"
                for (name, value) in extras { text += "<\(name)>\(Self.decimal(value))</\(name)>" }
                text += "</extensions>"
            }
            text += "</trkpt>\n"
        }
        text += "    </trkseg>\n  </trk>\n</gpx>\n"
        return Data(text.utf8)
    }

    private static func escaped(_ value: String) -> String { XMLText.escaped(value) }

    /// Shortest round-tripping decimal text of a coordinate or measurement.
    /// GPX numbers are `xsd:decimal`, which has no exponent, so tiny or huge values are written in full.
    private static func decimal(_ value: Double) -> String {
        let shortest = "\(value)"
        return shortest.contains("e") ? String(format: "%.15f", value) : shortest
    }

    /// The time in UTC to the millisecond, as the store writes every date (`ISO8601Timestamp`), a zero
    /// fraction left out as Apple's GPX files leave it out.
    private static func isoTime(_ date: Date) -> String {
        guard let text = ISO8601Timestamp.string(from: date) else { return "" }
        return text.hasSuffix(".000Z") ? text.dropLast(5) + "Z" : text
    }
}
