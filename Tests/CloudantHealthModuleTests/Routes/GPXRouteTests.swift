import CloudantCore
import CloudantHealthModule
import CloudantTestSupport
import Foundation
import Testing

@Suite("GPX workout routes")
struct GPXRouteTests {
    private let start = TestDates.june1

    private var locations: [RouteLocation] {
        [
            RouteLocation(timestamp: start, latitude: 37.7749, longitude: -122.4194, altitude: 10,
                          horizontalAccuracy: 3.5, verticalAccuracy: 4, speed: 2.5, course: 0),
            RouteLocation(timestamp: start.addingTimeInterval(60.25), latitude: 37.7839, longitude: -122.4194,
                          altitude: 15, horizontalAccuracy: 3.5, verticalAccuracy: 4, speed: 2.5, course: 0),
            RouteLocation(timestamp: start.addingTimeInterval(120), latitude: 37.7839, longitude: -122.4094, altitude: 12),
        ]
    }

    @Test func exportThenImportKeepsEveryFieldOfEveryPoint() throws {
        let route = GPXRoute(name: "Morning run <5k> & back", locations: locations)
        let read = try GPXRoute(parsing: route.gpxData())
        #expect(read == route)
    }

    @Test func pointTimesAreUTCToTheMillisecondWithAWholeSecondWrittenWithoutAFraction() throws {
        let text = String(decoding: GPXRoute(name: "run", locations: locations).gpxData(), as: UTF8.self)
        let times = text.components(separatedBy: "<time>").dropFirst().map { $0.prefix { $0 != "<" } }
        #expect(times.map(String.init) == [
            ISO8601Timestamp.string(from: start, fractionalSeconds: false),
            ISO8601Timestamp.string(from: start.addingTimeInterval(60.25)),
            ISO8601Timestamp.string(from: start.addingTimeInterval(120), fractionalSeconds: false),
        ].map { $0 ?? "" })
        #expect(times[1].hasSuffix(".250Z"))
    }

    @Test func summarySumsHaversineDistanceAndElapsedTime() {
        let summary = RouteSummary(locations)
        // 0.009° of latitude ≈ 1000.8 m; 0.01° of longitude at 37.78° ≈ 879.6 m.
        #expect(abs(summary.distance - 1880.4) < 1.0)
        #expect(summary.duration == 120)
        #expect(summary.elevationGain == 5)
        #expect(summary.pointCount == 3)
        #expect(RouteSummary([]).averageSpeed == nil)
    }

    @Test func readsAppleHealthRouteFilesWithTheirExtensions() async throws {
        let export = try await GeneratedHealthExport.make(records: 3000, seed: 2, extra: ["--route-points", "4"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let folder = export.exportFolder.appendingPathComponent("workout-routes")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".gpx") }
        var points = 0
        for file in files {
            let route = try GPXRoute(parsing: Data(contentsOf: folder.appendingPathComponent(file)))
            points += route.locations.count
            #expect(route.locations.allSatisfy { $0.speed != nil && $0.horizontalAccuracy != nil && $0.altitude != nil })
            #expect(route.summary.distance > 0)
        }
        #expect(files.count == export.expected["gpx_files"]?.numberValue?.int64Value.map(Int.init))
        #expect(points == export.expected["gpx_points"]?.numberValue?.int64Value.map(Int.init))
    }

    @Test func anotherRootOrAPointWithoutTimeIsATypedError() {
        let notGPX = #expect(throws: CloudantError.self) { try GPXRoute(parsing: Data("<kml/>".utf8)) }
        #expect(notGPX?.code == .invalidGPX)
        let untimed = #"<gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#
        let error = #expect(throws: CloudantError.self) { try GPXRoute(parsing: Data(untimed.utf8)) }
        #expect(error?.code == .invalidGPX)
        #expect(error?.context.itemIndex == 0)
    }

    @Test func routeSampleTakesItsIntervalFromThePoints() {
        let sample = GPXRoute(locations: locations).routeSample(uuid: "R0000000-0000-4000-8000-000000000001", workoutID: "w1")
        #expect(sample.startDate == start && sample.endDate == start.addingTimeInterval(120))
        #expect(sample.workoutID == "w1")
    }
}
