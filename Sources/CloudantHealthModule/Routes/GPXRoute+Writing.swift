@preconcurrency internal import CLibXML2
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

    private static func isoTime(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = Int((milliseconds / 1000).rounded(.down))
        let fraction = Int(milliseconds) - seconds * 1000
        let days = Int((Double(seconds) / 86400).rounded(.down))
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = civil(fromDays: days)
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day,
                          secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
        if fraction != 0 { text += String(format: ".%03d", fraction) }
        return text + "Z"
    }

    /// Howard Hinnant's `civil_from_days`.
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp + (mp < 10 ? 3 : -9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
