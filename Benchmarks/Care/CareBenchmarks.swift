import CSQLite
import CloudantCare
import Foundation

/// Issue 8 §8: a year of events for 50 tasks, and outcomes by event date over many outcomes, each against the
/// same work done by hand on raw SQLite in this run (rows fetched by hand-written SQL, JSON parsed, schedules
/// computed by the same pure code), so the ratio is what the care store costs.
enum CareBenchmarks {
    static func run(outcomes: Int, repetitions: Int) async throws {
        try await events(repetitions: repetitions)
        try await outcomesByEventDate(outcomes: outcomes, repetitions: repetitions)
    }

    private static let utc = TimeZone(identifier: "UTC") ?? .current
    private static let yearStart = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01T00:00:00Z
    private static let yearEnd = yearStart.addingTimeInterval(366 * 86_400)

    private static func calendar() -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        return calendar
    }

    /// Task `index`: daily at 08:00, every other task with a second element at 20:00 every two days.
    private static func task(_ index: Int, interval: ScheduleInterval = .daily) -> CareTask {
        var elements = [
            ScheduleElement(
                start: yearStart.addingTimeInterval(8 * 3600), end: nil, interval: interval, calendar: calendar())
        ]
        if index % 2 == 1 {
            elements.append(
                ScheduleElement(
                    start: yearStart.addingTimeInterval(20 * 3600), end: nil, interval: ScheduleInterval(days: 2),
                    calendar: calendar()))
        }
        return CareTask(
            id: String(format: "task-%04d", index), title: "Task \(index)", carePlanUUID: nil,
            schedule: Schedule(composing: elements), uuid: uuid(0x1_0000 + index), effectiveDate: yearStart,
            timezone: utc)
    }

    private static func uuid(_ number: Int) -> UUID {
        let hex = String(number, radix: 16)
        return UUID(uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex)
            ?? UUID()
    }

    private static func openCare(_ folder: URL) throws -> CareStore {
        let registry = try EntityRegistry(plugins: [CarePlugin()])
        let store = try DocumentStore.open(
            name: "care", in: StoreDirectory(path: folder.path), options: StoreOptions(registry: registry))
        return CareStore(store: store, timeZone: utc)
    }

    static func events(repetitions: Int) async throws {
        print("\nSetting up 50 tasks in the care store and in raw SQLite (untimed)…")
        let folder = Scratch.folder("care-events")
        defer { Scratch.remove(folder) }
        let care = try openCare(folder)
        let tasks = (0..<50).map { task($0) }
        try await care.add(tasks)
        let raw = try CareBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
        try raw.load(tasks.map { (id: $0.id, start: "", end: "", body: try JSONValue(encoding: $0).jsonString()) })
        var count = 0
        try await BenchmarkGroup(
            name: "Events for one year of 50 tasks", unit: "tasks", operations: tasks.count,
            baseline: .init(
                name: "SQL by id + parse + Schedule.events",
                body: {
                    for task in tasks {
                        for body in try raw.bodies("SELECT body FROM rows WHERE id = ?1", task.id) {
                            let stored = try JSONValue(parsing: Array(body.utf8)).decode(CareTask.self)
                            count += try stored.schedule.events(from: yearStart, to: yearEnd, in: utc).count
                        }
                    }
                }),
            candidates: [
                .init(
                    name: "care.events(forTask:from:to:)",
                    body: {
                        for task in tasks {
                            count += try await care.events(forTask: task.id, from: yearStart, to: yearEnd, in: utc).count
                        }
                    })
            ]
        ).run(repetitions: repetitions)
    }

    static func outcomesByEventDate(outcomes: Int, repetitions: Int) async throws {
        let perTask = 24 * 366
        let taskCount = max(1, (outcomes + perTask - 1) / perTask)
        print("\nSetting up \(outcomes) outcomes on \(taskCount) hourly tasks in the care store and raw SQLite (untimed)…")
        let folder = Scratch.folder("care-outcomes")
        defer { Scratch.remove(folder) }
        let care = try openCare(folder)
        let raw = try CareBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
        let hourly = ScheduleInterval(hours: 1)
        let tasks = (0..<taskCount).map { index -> CareTask in
            var hourlyTask = task(index, interval: hourly)
            hourlyTask.schedule = Schedule(composing: [hourlyTask.schedule.elements[0]])
            return hourlyTask
        }
        try await care.add(tasks)
        var remaining = outcomes
        var number = 0
        for task in tasks where remaining > 0 {
            let count = min(perTask, remaining)
            remaining -= count
            let batch = (0..<count).map { occurrence -> Outcome in
                number += 1
                return Outcome(
                    taskUUID: task.uuid, taskOccurrenceIndex: occurrence,
                    values: [OutcomeValue(.boolean(true), createdDate: yearEnd)], uuid: uuid(0x100_0000 + number),
                    effectiveDate: yearEnd, timezone: utc)
            }
            for start in stride(from: 0, to: batch.count, by: 2_000) {
                let slice = Array(batch[start..<min(start + 2_000, batch.count)])
                try await care.merge([RevisionRecord(entities: slice.map { .outcome($0) }, knowledgeVector: KnowledgeVector())])
            }
            try raw.load(
                try batch.map { outcome in
                    let start = yearStart.addingTimeInterval(Double(8 * 3600 + outcome.taskOccurrenceIndex * 3600))
                    return (
                        id: outcome.uuid.uuidString, start: iso(start), end: iso(start.addingTimeInterval(3600)),
                        body: try JSONValue(encoding: outcome).jsonString()
                    )
                })
        }
        try raw.execute("CREATE INDEX rows_by_start ON rows(start)")
        var generator = SplitMix64(seed: 8)
        let days = (0..<10).map { _ in yearStart.addingTimeInterval(Double(generator.next() % 360) * 86_400) }
        var returned = 0
        try await BenchmarkGroup(
            name: "Outcomes by event date (one day) over \(outcomes) outcomes, \(24 * taskCount) per day",
            unit: "queries", operations: days.count,
            baseline: .init(
                name: "SQL start < e AND end >= s + parse",
                body: {
                    for day in days {
                        returned += try raw.bodies(
                            "SELECT body FROM rows WHERE start < ?1 AND end >= ?2", iso(day.addingTimeInterval(86_399)),
                            iso(day)
                        ).count
                    }
                }),
            candidates: [
                .init(
                    name: "care.fetch(Outcome, day)",
                    body: {
                        for day in days {
                            let query = CareQuery(dateInterval: DateInterval(start: day, duration: 86_399))
                            returned += try await care.fetch(Outcome.self, query: query).count
                        }
                    })
            ]
        ).run(repetitions: repetitions)
    }

    private static func iso(_ date: Date) -> String {
        (try? JSONValue(encoding: date).stringValue) ?? ""
    }
}

/// Raw SQLite rows (id, event start, event end, JSON body) for the baselines.
private final class CareBaseline {
    private var db: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        try execute("CREATE TABLE rows (id TEXT PRIMARY KEY, start TEXT, end TEXT, body TEXT NOT NULL)")
    }

    deinit { sqlite3_close_v2(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
    }

    func load(_ rows: [(id: String, start: String, end: String, body: String)]) throws {
        let statement = try prepare("INSERT INTO rows (id, start, end, body) VALUES (?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        try execute("BEGIN")
        for row in rows {
            for (index, text) in [row.id, row.start, row.end, row.body].enumerated() {
                sqlite3_bind_text(statement, Int32(index + 1), text, -1, SQLITE_TRANSIENT)
            }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        try execute("COMMIT")
    }

    /// The bodies a query returns, binding `texts` as ?1, ?2, …
    func bodies(_ sql: String, _ texts: String...) throws -> [String] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        for (index, text) in texts.enumerated() { sqlite3_bind_text(statement, Int32(index + 1), text, -1, SQLITE_TRANSIENT) }
        var result: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            guard let pointer = sqlite3_column_text(statement, 0) else { continue }
            let body = String(cString: pointer)
            _ = try JSONValue(parsing: Array(body.utf8))
            result.append(body)
        }
        return result
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }
}
