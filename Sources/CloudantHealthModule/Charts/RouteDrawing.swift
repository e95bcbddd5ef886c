public import Foundation

/// A workout route drawn as an SVG path: the track projected so that distances look right at its latitude,
/// a start and an end mark, and its distance and duration (``RouteSummary``) as the caption.
///
/// ```swift
/// let svg = RouteDrawing(locations: route.locations, title: "Morning run").svg()
/// ```
public struct RouteDrawing: Sendable {
    /// The points, in time order.
    public var locations: [RouteLocation]
    /// The caption's title.
    public var title: String
    /// The width of the drawing, in SVG units.
    public var width: Double
    /// The height of the drawing.
    public var height: Double

    /// Creates a drawing of `locations` (sorted by time here).
    public init(locations: [RouteLocation], title: String = "Route", width: Double = 640, height: Double = 480) {
        self.locations = locations.sorted { $0.timestamp < $1.timestamp }
        self.title = title
        self.width = width
        self.height = height
    }

    /// The route as a standalone SVG document.
    public func svg() -> String {
        let summary = RouteSummary(locations)
        let caption = "\(SVGText.label(summary.distance / 1000)) km · \(Self.duration(summary.duration)) · \(summary.pointCount) points"
        let margin = 24.0
        let top = 56.0
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(SVGText.coordinate(width)) \(SVGText.coordinate(height))" \
            width="\(SVGText.coordinate(width))" height="\(SVGText.coordinate(height))" role="img" class="chart route" \
            aria-label="\(SVGText.escape("\(title), \(caption)"))" font-family="system-ui, sans-serif" font-size="12">
            <title>\(SVGText.escape("\(title), \(caption)"))</title>
            <rect x="0" y="0" width="\(SVGText.coordinate(width))" height="\(SVGText.coordinate(height))" fill="#ffffff"/>
            <text x="\(SVGText.coordinate(margin))" y="22" font-size="15" font-weight="600" fill="#1d232a">\(SVGText.escape(title))</text>
            <text x="\(SVGText.coordinate(margin))" y="40" fill="#5b6570">\(SVGText.escape(caption))</text>

            """
        guard let first = locations.first, let last = locations.last else {
            return svg + "<text x=\"\(SVGText.coordinate(width / 2))\" y=\"\(SVGText.coordinate(height / 2))\" "
                + "text-anchor=\"middle\" fill=\"#5b6570\">No points</text>\n</svg>\n"
        }
        // Equirectangular projection around the track's middle latitude: east-west distances shrink by its
        // cosine, so a square kilometre stays square on screen.
        let latitudes = locations.map(\.latitude)
        let longitudes = locations.map(\.longitude)
        let (south, north) = (latitudes.min()!, latitudes.max()!)
        let (west, east) = (longitudes.min()!, longitudes.max()!)
        let shrink = cos((south + north) / 2 * .pi / 180)
        let spanX = max((east - west) * shrink, 1e-9)
        let spanY = max(north - south, 1e-9)
        let scale = min((width - 2 * margin) / spanX, (height - top - margin) / spanY)
        let offsetX = margin + ((width - 2 * margin) - spanX * scale) / 2
        let offsetY = top + ((height - top - margin) - spanY * scale) / 2
        func point(_ location: RouteLocation) -> (Double, Double) {
            (offsetX + (location.longitude - west) * shrink * scale, offsetY + (north - location.latitude) * scale)
        }
        var path = ""
        for (index, location) in locations.enumerated() {
            let (x, y) = point(location)
            path += (index == 0 ? "M" : " L") + "\(SVGText.coordinate(x)) \(SVGText.coordinate(y))"
        }
        let (startX, startY) = point(first)
        let (endX, endY) = point(last)
        svg += """
            <path d="\(path)" fill="none" stroke="#0b63ce" stroke-width="3" stroke-linejoin="round" stroke-linecap="round"/>
            <circle cx="\(SVGText.coordinate(startX))" cy="\(SVGText.coordinate(startY))" r="6" fill="#067647"><title>Start</title></circle>
            <circle cx="\(SVGText.coordinate(endX))" cy="\(SVGText.coordinate(endY))" r="6" fill="#b42318"><title>End</title></circle>
            </svg>

            """
        return svg
    }

    /// A duration as a clock shows it: `1:05:09`, or `42:10` under an hour.
    public static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}
