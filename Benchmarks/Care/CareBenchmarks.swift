import CSQLite
import CloudantCare
import Foundation

/// A year of events for 50 tasks, and outcomes by event date over many outcomes, each against the
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
        try raw.load(tasks.map { (id: $0.id, body: try JSONValue(encoding: $0).jsonString()) })
        // The store also looks up the task's outcomes (there are none here): so does the baseline, on an
        // expression index as the store's `care-task-uuid` index.
        try raw.execute("CREATE INDEX rows_by_task_uuid ON rows(json_extract(body, '$.taskUUID'))")
        var count = 0
        try await BenchmarkGroup(
            name: "Events for one year of 50 tasks", unit: "tasks", operations: tasks.count,
            baseline: .init(
                name: "SQL: task, its outcomes; Schedule.events",
                body: {
                    for task in tasks {
                        for body in try raw.bodies("SELECT body FROM rows WHERE id = ?1", task.id) {
                            let stored = try JSONValue(parsing: Array(body.utf8)).decode(CareTask.self)
                            let outcomes = try raw.bodies(
                                "SELECT body FROM rows WHERE json_extract(body, '$.taskUUID') = ?1",
                                stored.uuid.uuidString
                            ).map { try JSONValue(parsing: Array($0.utf8)).decode(Outcome.self) }
                            count += try stored.schedule.events(from: yearStart, to: yearEnd, in: utc).count + outcomes.count
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
        }
        // The raw table holds the very documents the care store wrote (read back per task, untimed), with an
        // expression index equivalent to the care store's `care-event-key` index.
        for task in tasks {
            let selector = try MangoSelector(["entityType": "outcome", "taskUUID": .string(task.uuid.uuidString)])
            let documents = try await care.store.find(FindRequest(selector: selector, limit: Int.max)).docs
            try raw.load(
                documents.map { document in
                    var body = document
                    body.removeValue(forKey: "_id")
                    body.removeValue(forKey: "_rev")
                    return (id: document["_id"]?.stringValue ?? "", body: JSONValue.object(body).jsonString())
                })
        }
        try raw.execute("CREATE INDEX rows_by_event_key ON rows(json_extract(body, '$.careEventKey'))")
        var generator = SplitMix64(seed: 8)
        let days = (0..<10).map { _ in yearStart.addingTimeInterval(Double(generator.next() % 360) * 86_400) }
        try await explain(care, day: days[0])
        var returned = 0
        try await BenchmarkGroup(
            name: "Outcomes by event date (one day) over \(outcomes) outcomes, \(24 * taskCount) per day",
            unit: "queries", operations: days.count,
            baseline: .init(
                name: "SQL per span class + decode + sort",
                body: {
                    for day in days {
                        returned += try raw.outcomes(overlapping: DateInterval(start: day, duration: 86_399)).count
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
        print("  (\(returned) outcomes returned in all)")
    }

    /// Prints what the care store's finds for one day examine, so a regression to a one-sided range shows.
    private static func explain(_ care: CareStore, day: Date) async throws {
        let query = CareQuery(dateInterval: DateInterval(start: day, duration: 86_399))
        var (keys, docs, returned) = (0, 0, 0)
        let requests = try await care.findRequests(Outcome.self, query: query)
        for var request in requests {
            request.executionStats = true
            let result = try await care.store.find(request)
            keys += result.executionStats?.totalKeysExamined ?? 0
            docs += result.executionStats?.totalDocsExamined ?? 0
            returned += result.docs.count
        }
        print("  one day's \(requests.count) finds examine \(keys) index keys and \(docs) documents for \(returned) outcomes")
    }

    private static func iso(_ date: Date) -> String {
        (try? JSONValue(encoding: date).stringValue) ?? ""
    }
}

/// Raw SQLite rows (id, JSON body) for the baselines, queried by hand-written SQL.
private final class CareBaseline: SQLiteBaseline {

    /// The care store's outcome length classes (`EventSpan.classes`: bound in seconds, label), repeated so the
    /// raw query does the same work: one two-sided range per class on the same key.
    private static let spans: [(bound: Int?, label: String)] = [
        (3_600, "a"), (90_000, "b"), (8 * 86_400, "c"), (32 * 86_400, "d"), (367 * 86_400, "e"), (nil, "f"),
    ]

    override init(path: String) throws {
        try super.init(path: path)
        try execute("CREATE TABLE rows (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
    }

    func load(_ rows: [(id: String, body: String)]) throws {
        try insert("INSERT INTO rows (id, body) VALUES (?, ?)", rows) { statement, row in
            sqlite3_bind_text(statement, 1, row.id, -1, SQLITE_TRANSIENT)
            sqlite3_bind_text(statement, 2, row.body, -1, SQLITE_TRANSIENT)
        }
    }

    /// The bodies a query returns, binding `texts` as ?1, ?2, …
    func bodies(_ sql: String, _ texts: String...) throws -> [String] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        for (index, text) in texts.enumerated() { sqlite3_bind_text(statement, Int32(index + 1), text, -1, SQLITE_TRANSIENT) }
        var result: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            guard let pointer = sqlite3_column_text(statement, 0) else { continue }
            result.append(String(cString: pointer))
        }
        return result
    }

    /// What `care.fetch(Outcome.self, query:)` returns for an interval when every outcome has one version:
    /// outcomes whose event overlaps it (`start < end && end >= start`), newest `createdDate` first.
    func outcomes(overlapping interval: DateInterval) throws -> [Outcome] {
        let statement = try prepare(
            "SELECT body FROM rows WHERE json_extract(body, '$.careEventKey') >= ?1 "
                + "AND json_extract(body, '$.careEventKey') < ?2 AND json_extract(body, '$.entityType') = 'outcome' "
                + "AND json_extract(body, '$.endDate') >= ?3")
        defer { sqlite3_finalize(statement) }
        var result: [Outcome] = []
        for span in Self.spans {
            let lower = span.label + (span.bound.map { iso(interval.start.addingTimeInterval(-Double($0 + 1))) } ?? "")
            for (index, text) in [lower, span.label + iso(interval.end), iso(interval.start)].enumerated() {
                sqlite3_bind_text(statement, Int32(index + 1), text, -1, SQLITE_TRANSIENT)
            }
            while sqlite3_step(statement) == SQLITE_ROW {
                guard let pointer = sqlite3_column_text(statement, 0) else { continue }
                let length = Int(sqlite3_column_bytes(statement, 0))
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length)
                result.append(try JSONValue(parsing: Array(bytes)).decode(Outcome.self))
            }
            sqlite3_reset(statement)
        }
        return result.sorted { ($0.createdDate ?? .distantPast) > ($1.createdDate ?? .distantPast) }
    }

    private func iso(_ date: Date) -> String {
        (try? JSONValue(encoding: date).stringValue) ?? ""
    }

}
