internal import ArgumentParser
internal import CloudantHealth
internal import Foundation

/// `cloudant health chart --db NAME --type ID [--from DATE] [--to DATE] [--by …] [--unit U] [--tz ZONE] --out FILE.svg`.
struct HealthChartCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "chart",
        abstract: "Draw a quantity type's statistics over time as an SVG chart.",
        discussion: """
            Cumulative types (steps, energy) are drawn as one bar per bucket; discrete types (heart rate, \\
            weight) as their average line over the minimum-to-maximum band. The figures are those of \\
            `cloudant health stats`, with the same sources merged. --by defaults to hours up to 3 days, days up \\
            to 92 days, weeks up to 3 years and months beyond; --to defaults to now and --from to a year before \\
            --to. Writes FILE (- for standard output) and prints a JSON summary.

            Example:
              cloudant health chart --type HKQuantityTypeIdentifierStepCount \\\\
                --from 2024-01-01 --to 2025-01-01 --tz Europe/Paris --out steps.svg
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: HealthDatabaseOption
    @Option(help: ArgumentHelp("A HealthKit quantity type identifier.", valueName: "HK…Identifier")) var type: String
    @Option(help: "The start (ISO 8601 instant, or a day at midnight in --tz); a year before --to when absent.")
    var from: String?
    @Option(help: "The end, excluded (ISO 8601 instant, or a day at midnight in --tz); now when absent.") var to: String?
    @Option(help: ArgumentHelp("The bucket length; chosen from the range when absent.", valueName: "hour|day|week|month"))
    var by: String?
    @Option(help: "The unit of the values (a HealthKit unit such as km, kcal, count/min); the samples' when absent.")
    var unit: String?
    @Option(help: "An IANA time zone such as Europe/Paris; the system's when absent.") var tz: String?
    @Option(help: "The chart's title; the type's name when absent.") var title: String?
    @Option(help: "The drawing's width in pixels.") var width = 960
    @Option(help: "The drawing's height in pixels.") var height = 360
    @Option(help: ArgumentHelp("The SVG file to write, or - for standard output.", valueName: "FILE.svg")) var out: String

    func execute() async throws {
        let zone = try CareCLIDates.timeZone(tz)
        let end = try to.map { try HealthStatsCommand.instant($0, field: "to", in: zone) } ?? Date()
        let start = try from.map { try HealthStatsCommand.instant($0, field: "from", in: zone) }
            ?? end.addingTimeInterval(-365 * 86_400)
        guard end > start else {
            throw CloudantError(.invalidInput, "--to must be after --from.", context: .init(field: "to"))
        }
        let interval = try by.map { text -> HealthStatisticsInterval in
            guard let interval = HealthStatisticsInterval(rawValue: text) else {
                throw CloudantError(.invalidInput, "--by takes hour, day, week or month.", context: .init(field: "by"))
            }
            return interval
        } ?? HealthChart.interval(for: end.timeIntervalSince(start))
        guard (100...10_000).contains(width), (100...10_000).contains(height) else {
            throw CloudantError(.invalidInput, "--width and --height take 100 to 10000 pixels.", context: .init(field: "width"))
        }
        let target = try unit.map { text -> HealthUnit in
            do throws(CloudantError) { return try HealthUnit(parsing: text) } catch { throw error.adding { $0.field = "unit" } }
        }
        let store = try global.openHealth(database.db, mustExist: true)
        let statistics = try await HealthStore(store: store).statistics(ofType: type, from: start, to: end, by: interval, unit: target, timeZone: zone)
        let svg = HealthChart(
            statistics: statistics, title: title, width: Double(width), height: Double(height), timeZone: zone
        ).svg()
        try ChartOutput.write(svg, to: out)
        if out != "-" {
            Output.print([
                "ok": true, "out": .string(out), "type": .string(type), "unit": .string(statistics.unit),
                "by": .string(interval.rawValue), "buckets": .number(JSONNumber(statistics.buckets.count)),
                "samples": .number(JSONNumber(statistics.buckets.reduce(0) { $0 + $1.sampleCount })),
            ])
        }
    }
}

/// `cloudant health route --db NAME --workout ID --out FILE.svg|FILE.gpx`.
struct HealthRouteCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Draw a workout's route as SVG, or write it as GPX 1.1, by the --out file's extension.",
        discussion: """
            ID is the workout's document id or its uuid; a workout with several routes gives one track with all \\
            their points in time order. --format overrides the extension (and is needed with --out -).

            Examples:
              cloudant health route --workout 6F1C2B1E-0E52-4C43-9D0E-0A8E7A4C9F10 --out run.svg
              cloudant health route --workout 6F1C2B1E-0E52-4C43-9D0E-0A8E7A4C9F10 --out run.gpx
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: HealthDatabaseOption
    @Option(help: "The workout's document id or uuid.") var workout: String
    @Option(help: ArgumentHelp("The file to write (.svg or .gpx), or - for standard output.", valueName: "FILE")) var out: String
    @Option(help: ArgumentHelp("svg or gpx; from --out's extension when absent.", valueName: "svg|gpx")) var format: String?

    func execute() async throws {
        let kind = (format ?? URL(fileURLWithPath: out).pathExtension).lowercased()
        guard kind == "svg" || kind == "gpx" else {
            throw CloudantError(
                .invalidInput, "Write the route to a .svg or .gpx file, or pass --format svg|gpx.",
                context: .init(field: format == nil ? "out" : "format"))
        }
        let store = try global.openHealth(database.db, mustExist: true)
        let (found, locations) = try await HealthStore(store: store).route(ofWorkout: workout)
        let activity = found.activityType.replacingOccurrences(of: "HKWorkoutActivityType", with: "")
        let name = "\(activity) \(HealthCLIDates.format(found.startDate))"
        if kind == "gpx" {
            try ChartOutput.write(GPXRoute(name: name, locations: locations).gpxData(), to: out)
        } else {
            try ChartOutput.write(RouteDrawing(locations: locations, title: name).svg(), to: out)
        }
        if out != "-" {
            let summary = RouteSummary(locations)
            Output.print([
                "ok": true, "out": .string(out), "format": .string(kind), "workout": .string(found.id),
                "points": .number(JSONNumber(summary.pointCount)), "distance": .number(JSONNumber(summary.distance)),
            ])
        }
    }
}

/// Writes a drawing to a file (atomically) or to standard output.
enum ChartOutput {
    static func write(_ text: String, to path: String) throws { try write(Data(text.utf8), to: path) }

    static func write(_ data: Data, to path: String) throws {
        if path == "-" {
            StandardStreams.output(data)
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CloudantError(.invalidInput, "Cannot write \(path): \(error.localizedDescription)", context: .init(field: "out"))
        }
    }
}
