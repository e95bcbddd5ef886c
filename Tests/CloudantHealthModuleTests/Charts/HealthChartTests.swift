import CloudantHealthModule
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("SVG charts of health statistics and routes")
struct HealthChartTests {
    private let day: TimeInterval = 86_400
    private let start = Date(timeIntervalSince1970: 1_717_200_000)  // 2024-06-01T00:00:00Z

    private func bucket(_ index: Int, sum: Double? = nil, min: Double? = nil, average: Double? = nil, max: Double? = nil) -> HealthStatistics.Bucket {
        HealthStatistics.Bucket(
            start: start.addingTimeInterval(Double(index) * day), end: start.addingTimeInterval(Double(index + 1) * day),
            sum: sum, minimum: min, average: average, maximum: max,
            sampleCount: (sum ?? average) == nil ? 0 : 3, sources: [])
    }

    /// Whether `svg` is well-formed XML (what a browser or an image viewer needs to show it at all).
    private func isWellFormed(_ svg: String) -> Bool { XMLParser(data: Data(svg.utf8)).parse() }

    @Test func cumulativeTypesAreOneBarPerBucketWithItsExactSumAsTooltip() throws {
        let statistics = HealthStatistics(
            typeIdentifier: "HKQuantityTypeIdentifierStepCount", unit: "count", aggregation: .cumulative, interval: .day,
            buckets: [bucket(0, sum: 10_400), bucket(1), bucket(2, sum: 38_000)])
        let svg = HealthChart(statistics: statistics).svg()
        #expect(isWellFormed(svg))
        #expect(svg.components(separatedBy: "<rect x=").count - 1 == 3)  // the background and two bars, none for the empty day
        #expect(svg.contains("<title>2024-06-01: 10k count</title>") && svg.contains("<title>2024-06-03: 38k count</title>"))
        #expect(svg.contains(">40k</text>"), "the top grid line is above the highest bar")
        #expect(svg.contains(">StepCount</text>") && svg.contains("total 48k count"))
        #expect(!svg.contains("style="), "presentation attributes only, for pages with a strict Content-Security-Policy")
    }

    @Test func discreteTypesAreTheAverageOverTheMinimumToMaximumBandBrokenWhereNoSamplesAre() throws {
        let statistics = HealthStatistics(
            typeIdentifier: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", aggregation: .discrete, interval: .day,
            buckets: [
                bucket(0, min: 50, average: 70, max: 120), bucket(1, min: 55, average: 72, max: 110), bucket(2),
                bucket(3, min: 60, average: 75, max: 150),
            ])
        let svg = HealthChart(statistics: statistics, title: "Pulse <rest> & \"active\"").svg()
        #expect(isWellFormed(svg))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2 && svg.components(separatedBy: "<polygon").count - 1 == 2)
        #expect(svg.contains("average 72, 55–110 count/min, 3 samples"))
        #expect(svg.contains("Pulse &lt;rest&gt; &amp; &quot;active&quot;"))
    }

    @Test func anEmptyRangeStillDrawsAWellFormedChart() {
        let statistics = HealthStatistics(
            typeIdentifier: "HKQuantityTypeIdentifierBodyMass", unit: "kg", aggregation: .discrete, interval: .week, buckets: [])
        #expect(isWellFormed(HealthChart(statistics: statistics).svg()))
    }

    @Test func theIntervalFollowsTheLengthOfTheRange() {
        #expect(HealthChart.interval(for: 2 * day) == .hour)
        #expect(HealthChart.interval(for: 31 * day) == .day)
        #expect(HealthChart.interval(for: 365 * day) == .week)
        #expect(HealthChart.interval(for: 5 * 365 * day) == .month)
    }

    @Test func aRouteIsOnePathWithItsStartAndEndAndKeepsItsShapeAtItsLatitude() throws {
        // A square of 0.01° of latitude by 0.01°/cos(60°) of longitude at 60° north: square on the ground.
        let corners = [(60.0, 10.0), (60.01, 10.0), (60.01, 10.02), (60.0, 10.02)]
        let locations = corners.enumerated().map { index, corner in
            RouteLocation(timestamp: start.addingTimeInterval(Double(index) * 60), latitude: corner.0, longitude: corner.1)
        }
        let svg = RouteDrawing(locations: locations, title: "Loop <1>", width: 500, height: 556).svg()
        #expect(isWellFormed(svg))
        let path = try #require(svg.components(separatedBy: "<path d=\"").last?.components(separatedBy: "\"").first)
        let points = path.split(whereSeparator: { $0 == "M" || $0 == "L" }).map {
            $0.split(separator: " ").compactMap { Double($0) }
        }
        #expect(points.count == 4)
        let width = abs(points[2][0] - points[1][0])
        let height = abs(points[1][1] - points[0][1])
        #expect(abs(width - height) < 2, "a square on the ground is drawn square: \(width) × \(height)")
        #expect(svg.contains("<title>Start</title>") && svg.contains("Loop &lt;1&gt;"))
        #expect(RouteDrawing(locations: []).svg().contains("No points"))
        #expect(RouteDrawing.duration(3909) == "1:05:09" && RouteDrawing.duration(2530) == "42:10")
    }
}
