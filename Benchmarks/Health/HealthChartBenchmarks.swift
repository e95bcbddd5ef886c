import CSQLite
import CloudantDashboardPanels
import CloudantHealth
import CloudantServer
import Foundation

/// A year chart of one type from a 1M-sample health database, under 1 s. Measured three ways
/// against raw SQLite computing the same weekly minimum/average/maximum with one GROUP BY in this run: the
/// statistics and SVG in process, and the dashboard's health page over HTTP (what a browser waits for).
enum HealthChartBenchmarks {
    private static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    private static let steps = "HKQuantityTypeIdentifierStepCount"

    /// `count` samples over 2024 (UTC): 60 % heart rates (instants), 40 % one-minute step counts, from a
    /// watch and a phone, deterministic.
    private static func samples(count: Int, yearStart: Date, yearEnd: Date) -> [QuantitySample] {
        var generator = SplitMix64(seed: 24)
        let spacing = yearEnd.timeIntervalSince(yearStart) / Double(count)
        let watch = HealthSource(name: "Lee’s Apple Watch")
        let phone = HealthSource(name: "Lee’s iPhone")
        return (0..<count).map { index in
            let start = yearStart.addingTimeInterval(Double(index) * spacing)
            if index % 5 < 3 {
                return QuantitySample(
                    uuid: String(format: "HR-%08d", index), typeIdentifier: heartRate,
                    value: Double(50 + generator.next() % 100), unit: "count/min", startDate: start, endDate: start,
                    startUTCOffset: 0, source: watch)
            }
            return QuantitySample(
                uuid: String(format: "ST-%08d", index), typeIdentifier: steps, value: Double(generator.next() % 120),
                unit: "count", startDate: start, endDate: start.addingTimeInterval(60), startUTCOffset: 0,
                source: index % 2 == 0 ? watch : phone)
        }
    }

    static func run(samples count: Int, repetitions: Int) async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let yearStart = calendar.date(from: DateComponents(year: 2024, month: 1, day: 1)),
            let yearEnd = calendar.date(from: DateComponents(year: 2025, month: 1, day: 1))
        else { throw BenchmarkError.unexpected("no 2024 in the calendar") }
        print("\nSetting up \(count) quantity samples in a health store and in raw SQLite (untimed)…")
        let folder = Scratch.folder("health-chart")
        defer { Scratch.remove(folder) }
        let directory = StoreDirectory(path: folder.path)
        let all = samples(count: count, yearStart: yearStart, yearEnd: yearEnd)
        do {
            let store = try DocumentStore.open(
                name: "health", in: directory, options: StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin()])))
            for batch in stride(from: 0, to: all.count, by: 20_000) {
                _ = try await store.add(Array(all[batch..<min(batch + 20_000, all.count)]))
            }
        }
        let raw = try WeeklyBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
        try raw.load(all)
        let store = try DocumentStore.open(
            name: "health", in: directory, options: StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin()])))
        // What quantity queries were answered from before the sample index left quantities out.
        try await store.createIndex(everySampleIndex)
        let server = try await BenchServer.start(serving: directory) {
            $0.dashboardPanels = [HealthDashboardPanel(timeZone: .gmt)]
        }
        let client = try LoopbackClient(port: try await server.server.port())
        let page = "/_utils/db/health/panel/health?type=\(heartRate)&from=2024-01-01&to=2024-12-31&by=week"
        let authorization = BenchServer.authorization
        guard try client.request("GET", page, headers: authorization) == 200 else {
            throw BenchmarkError.unexpected("the health page did not answer 200")
        }
        var checksum = 0.0
        try await BenchmarkGroup(
            name: "A year chart of heart rate (weekly min/avg/max) among \(count) samples", unit: "charts", operations: 1,
            baseline: .init(
                name: "raw SQLite: one GROUP BY week",
                body: { checksum += try raw.weekly(heartRate, from: yearStart, to: yearEnd) }),
            candidates: [
                .init(
                    name: "statistics(ofType:…by: .week) + SVG",
                    body: {
                        let statistics = try await HealthStore(store: store).statistics(
                            ofType: heartRate, from: yearStart, to: yearEnd, by: .week, timeZone: .gmt)
                        checksum += Double(HealthChart(statistics: statistics).svg().utf8.count)
                    }),
                .init(
                    name: "dashboard health page over HTTP",
                    body: { checksum += Double(try client.request("GET", page, headers: authorization)) }),
            ]
        ).run(repetitions: repetitions)
        print("  (checksum \(checksum))")
        try await daysOfHeartRate(in: store, yearStart: yearStart, count: count, repetitions: repetitions)
        await server.stop()
    }
}

extension HealthChartBenchmarks {
    /// A JSON index of (kind, type, start) over every sample, quantities included.
    static let everySampleIndex = IndexDefinition(
        name: "every-sample", designDocument: "benchmark",
        fields: [.ascending("entityType"), .ascending("typeIdentifier"), .ascending("startDate")])

    /// Ten days of heart rates read as samples, a day per query: from the quantity projection (how
    /// `HealthStore.samples(ofType:in:)` answers) against Mango over an index of every sample (how it
    /// answered before quantities left the sample index), in the same run.
    static func daysOfHeartRate(in store: DocumentStore, yearStart: Date, count: Int, repetitions: Int) async throws {
        let health = HealthStore(store: store)
        let days = (0..<10).map { DateInterval(start: yearStart.addingTimeInterval(Double(17 + 31 * $0) * 86_400), duration: 86_400) }
        func query(_ day: DateInterval) throws -> CollectionQuery {
            try health.collection(healthKitSampleType: .quantity).where(typeIdentifier: heartRate).where(startDateIn: day)
                .sort(ascending: "startDate")
        }
        var checksum = 0
        try await BenchmarkGroup(
            name: "A day of heart rates as samples, 10 days, among \(count) samples", unit: "queries", operations: days.count,
            baseline: .init(
                name: "Mango over an index of every sample (getSamples with use_index)",
                body: {
                    for day in days {
                        checksum += try await query(day)
                            .useIndex(designDocument: everySampleIndex.designDocument ?? "", name: everySampleIndex.name)
                            .getSamples().count
                    }
                }),
            candidates: [
                .init(
                    name: "the quantity projection (getSamples)",
                    body: { for day in days { checksum += try await query(day).getSamples().count } }),
            ]
        ).run(repetitions: repetitions)
        print("  (checksum \(checksum))")
    }
}

/// The samples as plain columns in raw SQLite, indexed by type and start.
private final class WeeklyBaseline: SQLiteBaseline {

    override init(path: String) throws {
        try super.init(path: path)
        try execute("CREATE TABLE samples (uuid TEXT PRIMARY KEY, type TEXT NOT NULL, start REAL NOT NULL, value REAL NOT NULL)")
        try execute("CREATE INDEX samples_by_type_start ON samples (type, start)")
    }

    func load(_ samples: [QuantitySample]) throws {
        try insert("INSERT INTO samples (uuid, type, start, value) VALUES (?, ?, ?, ?)", samples) { statement, sample in
            sqlite3_bind_text(statement, 1, sample.uuid, -1, SQLITE_TRANSIENT)
            sqlite3_bind_text(statement, 2, sample.typeIdentifier, -1, SQLITE_TRANSIENT)
            sqlite3_bind_double(statement, 3, sample.startDate.timeIntervalSince1970)
            sqlite3_bind_double(statement, 4, sample.value)
        }
    }

    /// Minimum, average and maximum per week (2024-01-01 is a Monday), summed into a checksum.
    func weekly(_ type: String, from start: Date, to end: Date) throws -> Double {
        let statement = try prepare("""
            SELECT CAST((start - ?1) / 604800 AS INTEGER) AS week, MIN(value), AVG(value), MAX(value), COUNT(*)
            FROM samples WHERE type = ?2 AND start >= ?1 AND start < ?3 GROUP BY week
            """)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_double(statement, 1, start.timeIntervalSince1970)
        sqlite3_bind_text(statement, 2, type, -1, SQLITE_TRANSIENT)
        sqlite3_bind_double(statement, 3, end.timeIntervalSince1970)
        var checksum = 0.0
        while sqlite3_step(statement) == SQLITE_ROW {
            checksum += sqlite3_column_double(statement, 1) + sqlite3_column_double(statement, 2)
                + sqlite3_column_double(statement, 3)
        }
        return checksum
    }
}
