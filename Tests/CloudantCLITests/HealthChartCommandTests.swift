import CloudantTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("cloudant health chart and health route")
struct HealthChartCommandTests {
    @Test func aStepChartHasTheStatisticsExactSumsAndPicksHoursForADay() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["health", "import", HealthFixtures.folder("ios15").path], in: folder).status == 0)
        let out = folder.appendingPathComponent("steps.svg").path
        let chart = try await CLIRunner.run(
            ["health", "chart", "--db", "health", "--type", "HKQuantityTypeIdentifierStepCount", "--from", "2022-05-09",
             "--to", "2022-05-10", "--tz", "America/New_York", "--out", out], in: folder)
        #expect(chart.status == 0, "\(chart.stderr)")
        let summary = try jsonObject(chart.stdout)
        #expect(summary["by"] as? String == "hour" && summary["buckets"] as? Int == 24 && summary["unit"] as? String == "count")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(XMLParser(data: Data(svg.utf8)).parse())
        // The same figures as `health stats`: the Watch's 1200 at nine, the iPhone's 400 at noon.
        #expect(svg.contains("<title>05-09 09:00: 1200 count</title>") && svg.contains("<title>05-09 12:00: 400 count</title>"))
        #expect(svg.contains("total 1600 count"))

        let stdout = try await CLIRunner.run(
            ["health", "chart", "--type", "HKQuantityTypeIdentifierStepCount", "--from", "2022-05-01", "--to", "2022-06-01",
             "--by", "week", "--out", "-"], in: folder)
        #expect(stdout.status == 0 && stdout.stdout.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    }

    @Test func badChartRequestsExitWithTheirCategory() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["health", "import", HealthFixtures.folder("ios15").path], in: folder).status == 0)
        let base = ["health", "chart", "--type", "HKQuantityTypeIdentifierStepCount", "--out", folder.appendingPathComponent("x.svg").path]
        #expect(try await CLIRunner.run(base + ["--from", "2022-05-10", "--to", "2022-05-09"], in: folder).status == 2)
        #expect(try await CLIRunner.run(base + ["--by", "fortnight"], in: folder).status == 2)
        #expect(try await CLIRunner.run(base + ["--db", "absent"], in: folder).status == 3)
        let category = try await CLIRunner.run(
            ["health", "chart", "--type", "HKCategoryTypeIdentifierSleepAnalysis", "--out", "-"], in: folder)
        #expect(category.status == 2 && category.stderr.contains("quantity types"))
        let unwritable = try await CLIRunner.run(
            ["health", "chart", "--type", "HKQuantityTypeIdentifierStepCount", "--out", "/nonexistent/folder/x.svg"], in: folder)
        #expect(unwritable.status == 2 && unwritable.stderr.contains("Cannot write"))
    }

    @Test func aRouteIsDrawnAsSVGOrWrittenAsGPXByTheFilesExtension() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, _, workoutID, points) = try await importedWorkoutRoute(in: folder)

        let svgPath = folder.appendingPathComponent("run.svg").path
        let drawn = try await CLIRunner.run(["health", "route", "--workout", workoutID, "--out", svgPath], in: folder)
        #expect(drawn.status == 0, "\(drawn.stderr)")
        #expect(try jsonObject(drawn.stdout)["points"] as? Int == points)
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(XMLParser(data: Data(svg.utf8)).parse())
        let path = try #require(svg.components(separatedBy: "<path d=\"").last?.components(separatedBy: "\"").first)
        #expect(path.filter { $0 == "M" || $0 == "L" }.count == points)

        let gpxPath = folder.appendingPathComponent("run.gpx").path
        #expect(try await CLIRunner.run(["health", "route", "--workout", workoutID, "--out", gpxPath], in: folder).status == 0)
        let gpx = try String(contentsOfFile: gpxPath, encoding: .utf8)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == points)

        let text = try await CLIRunner.run(["health", "route", "--workout", workoutID, "--out", "run.txt"], in: folder)
        #expect(text.status == 2)
        let forced = try await CLIRunner.run(["health", "route", "--workout", workoutID, "--out", "-", "--format", "gpx"], in: folder)
        #expect(forced.status == 0 && forced.stdout.contains("<gpx"))
        let unknown = try await CLIRunner.run(["health", "route", "--workout", "nope", "--out", svgPath], in: folder)
        try unknown.expectError(status: 3, ["error": "not_found"])
    }
}
