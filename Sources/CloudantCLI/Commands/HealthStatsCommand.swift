internal import ArgumentParser
internal import CloudantHealth
internal import Foundation

/// `cloudant health stats --db NAME --type ID --from DATE --to DATE --by hour|day|week|month [--unit UNIT]
/// [--tz ZONE] [--source-priority NAMES]`.
struct HealthStatsCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print a quantity type's statistics per hour, day, week or month as JSON.",
        discussion: """
            Cumulative types (steps, distance, energy, nutrients) are summed; discrete types (heart rate, \\
            weight) get their minimum, average and maximum. When several sources recorded the same time (an \\
            iPhone and an Apple Watch both counting steps), each stretch of time counts once, from the source \\
            highest in priority, as the Health app does: Apple Watches, then iPhones, then apps, unless \\
            --source-priority names sources to put first. Buckets follow the calendar of --tz (the system's time \\
            zone when absent); weeks start on Monday. --from and --to are ISO 8601 instants, or days \\
            (2024-06-01), which start at midnight in --tz; --to is excluded.

            Example:
              cloudant health stats --type HKQuantityTypeIdentifierStepCount \\\\
                --from 2024-06-01 --to 2024-06-08 --by day --tz America/Los_Angeles
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: HealthDatabaseOption
    @Option(help: ArgumentHelp("A HealthKit quantity type identifier.", valueName: "HK…Identifier")) var type: String
    @Option(help: "The start (ISO 8601 instant, or a day at midnight in --tz).") var from: String
    @Option(help: "The end, excluded (ISO 8601 instant, or a day at midnight in --tz).") var to: String
    @Option(help: ArgumentHelp("The bucket length.", valueName: "hour|day|week|month")) var by: String
    @Option(help: "The unit of the results (a HealthKit unit such as km, kcal, count/min); the samples' when absent.")
    var unit: String?
    @Option(help: "An IANA time zone such as Europe/Paris; the system's when absent.") var tz: String?
    @Option(
        name: .customLong("source-priority"),
        help: ArgumentHelp("Source names that count first, comma-separated, highest first.", valueName: "NAMES"))
    var sourcePriority: String?

    func execute() async throws {
        guard let interval = HealthStatisticsInterval(rawValue: by) else {
            throw CloudantError(.invalidInput, "--by takes hour, day, week or month.", context: .init(field: "by"))
        }
        let zone = try CareCLIDates.timeZone(tz)
        let start = try Self.instant(from, field: "from", in: zone)
        let end = try Self.instant(to, field: "to", in: zone)
        let target = try unit.map { text -> HealthUnit in
            do throws(CloudantError) { return try HealthUnit(parsing: text) } catch { throw error.adding { $0.field = "unit" } }
        }
        let priority = HealthSourcePriority(
            sourcePriority?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? [])
        let store = try global.openHealth(database.db, mustExist: true)
        let statistics = try await HealthStore(store: store).statistics(
            ofType: type, from: start, to: end, by: interval, unit: target, timeZone: zone, sourcePriority: priority)
        Output.print(Self.json(statistics, in: zone))
    }

    /// An ISO 8601 instant, or a day (`2024-06-01`) at midnight in `zone`.
    static func instant(_ text: String, field: String, in zone: TimeZone) throws -> Date {
        if let day = CalendarDay(parsing: text) { return day.interval(in: zone).start }
        return try HealthCLIDates.parse(text, field: field)
    }

    /// The statistics with each bucket's bounds in `zone`'s offset (`2024-06-01T00:00:00-07:00`).
    static func json(_ statistics: HealthStatistics, in zone: TimeZone) -> JSONValue {
        func local(_ date: Date) -> JSONValue {
            .string(LocalTimestamp(date: date, utcOffset: zone.secondsFromGMT(for: date)).iso8601 ?? "")
        }
        func number(_ value: Double?) -> JSONValue { value.map { .number(JSONNumber($0)) } ?? .null }
        let buckets = statistics.buckets.map { bucket -> JSONValue in
            var members: [(String, JSONValue)] = [("start", local(bucket.start)), ("end", local(bucket.end))]
            switch statistics.aggregation {
            case .cumulative: members.append(("sum", number(bucket.sum)))
            case .discrete:
                members += [("minimum", number(bucket.minimum)), ("average", number(bucket.average)),
                            ("maximum", number(bucket.maximum))]
            }
            members += [("sampleCount", .number(JSONNumber(bucket.sampleCount))),
                        ("sources", .array(bucket.sources.map(JSONValue.string)))]
            return .object(JSONObject(members))
        }
        var members: [(String, JSONValue)] = [
            ("type", .string(statistics.typeIdentifier)), ("unit", .string(statistics.unit)),
            ("aggregation", .string(statistics.aggregation.rawValue)), ("by", .string(statistics.interval.rawValue)),
            ("timeZone", .string(statistics.timeZone)), ("sources", .array(statistics.sources.map(JSONValue.string))),
        ]
        if let total = statistics.total { members.append(("total", .number(JSONNumber(total)))) }
        members.append(("buckets", .array(buckets)))
        return .object(JSONObject(members))
    }
}
