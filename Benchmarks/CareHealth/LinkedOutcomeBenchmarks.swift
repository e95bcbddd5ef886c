import CSQLite
import CloudantCareHealthBridge
import CloudantCare
import CloudantHealth
import Foundation

/// The outcomes of a daily (all-day) step task over one year, computed from the step samples in the
/// store, against the same answer computed on raw SQLite in this run (the samples' columns read by one
/// hand-written range query, summed per day by a sweep in Swift), so the ratio is what the bridge costs.
/// The target is under 1 s for 1M samples (`--health-records N` changes the count).
enum LinkedOutcomeBenchmarks {
    private static let zone = TimeZone(identifier: "Europe/Paris") ?? .current
    private static let stepType = "HKQuantityTypeIdentifierStepCount"

    private static func calendar() -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// `count` five-minute step samples spread evenly over 2024 (some straddle midnight), deterministic.
    private static func samples(count: Int, yearStart: Date, yearEnd: Date) -> [QuantitySample] {
        var generator = SplitMix64(seed: 20)
        let spacing = yearEnd.timeIntervalSince(yearStart) / Double(count)
        return (0..<count).map { index in
            let start = yearStart.addingTimeInterval(Double(index) * spacing)
            return QuantitySample(
                uuid: String(format: "STEP-%08d", index), typeIdentifier: stepType,
                value: Double(generator.next() % 200), unit: "count", startDate: start,
                endDate: start.addingTimeInterval(300), startUTCOffset: zone.secondsFromGMT(for: start))
        }
    }

    static func run(samples count: Int, repetitions: Int) async throws {
        let calendar = calendar()
        guard let yearStart = calendar.date(from: DateComponents(year: 2024, month: 1, day: 1)),
            let yearEnd = calendar.date(from: DateComponents(year: 2025, month: 1, day: 1))
        else { throw BenchmarkError.unexpected("no 2024 in the calendar") }
        print("\nSetting up a daily step task and \(count) step samples in the store and in raw SQLite (untimed)…")
        let folder = Scratch.folder("care-health")
        defer { Scratch.remove(folder) }
        let store = try DocumentStore.open(
            name: "me", in: StoreDirectory(path: folder.path), options: StoreOptions(registry: try .careHealth()))
        let care = CareStore(store: store, timeZone: zone)
        let careHealth = CareHealthStore(care: care)
        let element = ScheduleElement(start: yearStart, end: nil, interval: .daily, duration: .allDay, calendar: calendar)
        let task = HealthKitLinkedTask(
            task: CareTask(
                id: "steps", title: "Walk", carePlanUUID: nil, schedule: Schedule(composing: [element]),
                effectiveDate: yearStart, timezone: zone),
            healthKitLinkage: HealthKitLinkage(quantityIdentifier: stepType, quantityType: .cumulative, unitString: "count"))
        _ = try await care.add([task])
        let all = samples(count: count, yearStart: yearStart, yearEnd: yearEnd)
        for batch in stride(from: 0, to: all.count, by: 20_000) {
            _ = try await store.add(Array(all[batch..<min(batch + 20_000, all.count)]))
        }
        let raw = try StepBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
        try raw.load(all)
        let year = DateInterval(start: yearStart, end: yearEnd)
        var days: [DateInterval] = []
        var day = yearStart
        while day < yearEnd, let next = calendar.date(byAdding: .day, value: 1, to: day) {
            days.append(DateInterval(start: day, end: next))
            day = next
        }
        var checksum = 0.0
        try await BenchmarkGroup(
            name: "Outcomes of a daily step task over one year, \(count) step samples", unit: "events",
            operations: days.count,
            baseline: .init(
                name: "SQL range + per-day proportional sum",
                body: { checksum += try raw.dailySums(days, in: year).reduce(0, +) }),
            candidates: [
                // The read alone (every column of the year's samples through the projection), so the ratio
                // of the full computation splits into reading and computing.
                .init(
                    name: "read: store.projectedRows (all columns)",
                    body: {
                        let query = ProjectionQuery(
                            projection: HealthPlugin.quantityProjection.name,
                            where: [
                                .init("typeIdentifier", .equal, .text(stepType)), .init("start", .greaterOrEqual, .date(yearStart)),
                                .init("start", .less, .date(yearEnd)),
                            ])
                        let values = try await store.projectedRows(query) { row in
                            HealthPlugin.QuantityColumn.allCases.reduce(0.0) { sum, column in
                                switch column {
                                case .start, .end, .value: sum + (row.double(at: column.rawValue) ?? 0)
                                default: sum + Double(row.string(at: column.rawValue)?.utf8.count ?? 0)
                                }
                            }
                        }
                        checksum += values.reduce(0, +)
                    }),
                .init(
                    name: "careHealth.fetchEvents(taskID:in:)",
                    body: {
                        let events = try await careHealth.fetchEvents(taskID: "steps", in: year, timeZone: zone)
                        checksum += events.compactMap { $0.outcome?.total }.reduce(0, +)
                    })
            ]
        ).run(repetitions: repetitions)
        print("  (checksum \(checksum))")
    }
}

/// The step samples as plain columns in raw SQLite, indexed by start.
private final class StepBaseline: SQLiteBaseline {

    override init(path: String) throws {
        try super.init(path: path)
        try execute("CREATE TABLE samples (uuid TEXT PRIMARY KEY, start REAL NOT NULL, end REAL NOT NULL, value REAL NOT NULL)")
        try execute("CREATE INDEX samples_by_start ON samples (start)")
    }

    func load(_ samples: [QuantitySample]) throws {
        try insert("INSERT INTO samples (uuid, start, end, value) VALUES (?, ?, ?, ?)", samples) { statement, sample in
            sqlite3_bind_text(statement, 1, sample.uuid, -1, SQLITE_TRANSIENT)
            sqlite3_bind_double(statement, 2, sample.startDate.timeIntervalSince1970)
            sqlite3_bind_double(statement, 3, sample.endDate.timeIntervalSince1970)
            sqlite3_bind_double(statement, 4, sample.value)
        }
    }

    /// Each day's sum, each sample counted in proportion to its overlap with the day (the bridge's rule).
    func dailySums(_ days: [DateInterval], in range: DateInterval) throws -> [Double] {
        let statement = try prepare("SELECT start, end, value FROM samples WHERE start < ?2 AND end > ?1 ORDER BY start")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_double(statement, 1, range.start.timeIntervalSince1970)
        sqlite3_bind_double(statement, 2, range.end.timeIntervalSince1970)
        var sums = [Double](repeating: 0, count: days.count)
        var first = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let start = sqlite3_column_double(statement, 0)
            let end = sqlite3_column_double(statement, 1)
            let value = sqlite3_column_double(statement, 2)
            while first < days.count, days[first].end.timeIntervalSince1970 <= start { first += 1 }
            var index = first
            while index < days.count, days[index].start.timeIntervalSince1970 < max(end, start + 1e-9) {
                let overlap = min(end, days[index].end.timeIntervalSince1970) - max(start, days[index].start.timeIntervalSince1970)
                sums[index] += end > start ? value * max(0, overlap) / (end - start) : value
                index += 1
            }
        }
        return sums
    }

}
