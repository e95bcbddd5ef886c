import CloudantTestSupport
import Foundation
import Testing

/// `cloudant care outcomes`: events with outcomes, computed from imported samples for a
/// HealthKit-linked task, read from stored outcomes for a plain one.
@Suite("cloudant care outcomes")
struct CareOutcomesCommandTests {
    private static let zone = "America/Los_Angeles"

    /// One `<Record>` of the export, read here with a regular expression rather than the importer's parser.
    private struct ExportRecord {
        var type: String
        var source: String
        var start: Date
        var end: Date
        var value: Double
    }

    private static func records(ofType type: String, in xml: String) throws -> [ExportRecord] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        func attribute(_ name: String, _ line: Substring) -> String? {
            guard let range = line.range(of: " \(name)=\"") else { return nil }
            let rest = line[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        return try xml.split(separator: "\n").filter { $0.contains("<Record type=\"\(type)\"") }.map { line in
            ExportRecord(
                type: type, source: attribute("sourceName", line) ?? "", start: try #require(attribute("startDate", line).flatMap(formatter.date(from:))),
                end: try #require(attribute("endDate", line).flatMap(formatter.date(from:))),
                value: try #require(attribute("value", line).flatMap(Double.init)))
        }
    }

    /// The day's steps as the issue defines them: each sample's value in proportion to the part of it that lies
    /// in [midnight, next midnight), an instantaneous sample in full in the day holding it.
    private static func expectedSum(_ records: [ExportRecord], from start: Date, to end: Date) -> Double? {
        var sum = 0.0
        var any = false
        for record in records.sorted(by: { $0.start < $1.start }) {
            if record.start == record.end {
                guard record.start >= start && record.start < end else { continue }
                sum += record.value
                any = true
                continue
            }
            let overlap = min(record.end, end).timeIntervalSince(max(record.start, start))
            guard overlap > 0 else { continue }
            sum += record.value * overlap / record.end.timeIntervalSince(record.start)
            any = true
        }
        return any ? sum : nil
    }

    @Test func outcomesOfAStepTaskAreTheImportedExportsDailySums() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 40 days ending 2024-03-25: the US spring-forward day (a 23-hour day) is among them.
        let export = try await GeneratedHealthExport(
            in: folder, records: 3000, seed: 11, extra: ["--days", "40", "--export-date", "2024-03-25", "--no-cda"])
        let imported = try await CLIRunner.run(["health", "import", "--db", "me", export.zipFile.path], in: folder)
        #expect(imported.status == 0, "\(imported.stderr)")

        let task = """
            {"id":"steps","title":"Walk","schedule":{"elements":[{"start":"2024-02-20T00:00:00-08:00",
              "interval":{"day":1},"duration":{"isAllDay":true},"targetValues":[]}]},
             "timezone":{"identifier":"\(Self.zone)"},
             "healthKitLinkage":{"quantityIdentifier":"HKQuantityTypeIdentifierStepCount","quantityType":"cumulative",
               "unitString":"count"}}
            """
        let added = try await CLIRunner.run(["care", "add", "--db", "me", "task"], stdin: task, in: folder)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try jsonObject(added.stdout)["healthKitLinkage"] != nil)

        let run = try await CLIRunner.run(
            ["care", "outcomes", "--db", "me", "--task", "steps", "--from", "2024-02-20T00:00:00-08:00",
             "--to", "2024-03-20T00:00:00-07:00", "--tz", Self.zone], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let events = try jsonArray(run.stdout)
        #expect(events.count == 29)

        let xml = try String(contentsOf: export.exportFolder.appendingPathComponent("export.xml"), encoding: .utf8)
        let steps = try Self.records(ofType: "HKQuantityTypeIdentifierStepCount", in: xml)
        // One source, so the plain prorated sum below is also HealthKit's merged sum (no time counted twice).
        #expect(Set(steps.map(\.source)).count == 1)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: Self.zone))
        var day = try #require(calendar.date(from: DateComponents(year: 2024, month: 2, day: 20)))
        var daysWithSteps = 0
        for event in events {
            let next = try #require(calendar.date(byAdding: .day, value: 1, to: day))
            let expected = Self.expectedSum(steps, from: day, to: next)
            let outcome = event["outcome"] as? [String: Any]
            let values = outcome?["values"] as? [[String: Any]]
            let value = values?.first?["value"] as? Double
            if let expected {
                daysWithSteps += 1
                let got = try #require(value, "no outcome on \(day)")
                #expect(abs(got - expected) <= 1e-9 * max(1, expected), "\(day): \(got) ≠ \(expected)")
                #expect(values?.first?["units"] as? String == "count")
                #expect((outcome?["sampleUUIDs"] as? [[String]])?.first?.isEmpty == false)
            } else {
                #expect(outcome == nil, "\(day) has no step sample but an outcome")
            }
            if calendar.component(.day, from: day) == 10, calendar.component(.month, from: day) == 3 {
                // The 23-hour day: CareKit's all-day event ends at its last second.
                let format = ISO8601DateFormatter()
                let start = try #require((event["start"] as? String).flatMap(format.date(from:)))
                let end = try #require((event["end"] as? String).flatMap(format.date(from:)))
                #expect(end.timeIntervalSince(start) == 23 * 3600 - 1)
            }
            day = next
        }
        #expect(daysWithSteps > 20)
    }

    @Test func aPlainTasksOutcomesAreTheStoredOnes() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let task = """
            {"id":"meds","title":"Meds","schedule":{"elements":[{"start":"2024-03-01T08:00:00Z","interval":{"day":1},
              "duration":{"isAllDay":false,"seconds":3600},"targetValues":[]}]},"timezone":{"identifier":"UTC"}}
            """
        let added = try await CLIRunner.run(["care", "add", "task"], stdin: task, in: folder)
        #expect(added.status == 0, "\(added.stderr)")
        let taskUUID = try #require(try jsonObject(added.stdout)["uuid"] as? String)
        let outcome = """
            {"id":"o1","taskUUID":"\(taskUUID)","taskOccurrenceIndex":1,
             "values":[{"type":"boolean","value":true,"createdDate":"2024-03-02T08:10:00Z"}]}
            """
        let recorded = try await CLIRunner.run(["care", "add", "outcome"], stdin: outcome, in: folder)
        #expect(recorded.status == 0, "\(recorded.stderr)")

        let run = try await CLIRunner.run(
            ["care", "outcomes", "--task", "meds", "--from", "2024-03-01T00:00:00Z", "--to", "2024-03-04T00:00:00Z",
             "--tz", "UTC"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let events = try jsonArray(run.stdout)
        #expect(events.map { $0["occurrence"] as? Int } == [0, 1, 2])
        #expect(events.map { $0["outcome"] is NSNull } == [true, false, true])
        let values = (events[1]["outcome"] as? [String: Any])?["values"] as? [[String: Any]]
        #expect(values?.first?["value"] as? Bool == true)
    }

    @Test func aSampleInAnIncompatibleUnitExitsWithTheInvalidInputStatus() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let task = """
            {"id":"steps","title":"Walk","schedule":{"elements":[{"start":"2024-03-01T00:00:00Z","interval":{"day":1},
              "duration":{"isAllDay":true},"targetValues":[]}]},"timezone":{"identifier":"UTC"},
             "healthKitLinkage":{"quantityIdentifier":"HKQuantityTypeIdentifierStepCount","quantityType":"cumulative",
               "unitString":"count"}}
            """
        #expect(try await CLIRunner.run(["care", "add", "task"], stdin: task, in: folder).status == 0)
        let sample = """
            {"_id":"odd","entityType":"HKQuantitySample","entitySchemaVersion":1,"id":"odd","uuid":"odd",
             "typeIdentifier":"HKQuantityTypeIdentifierStepCount","value":3,"unit":"kg",
             "startDate":"2024-03-01T10:00:00.000Z","endDate":"2024-03-01T10:05:00.000Z","metadata":{}}
            """
        let put = try await CLIRunner.run(["put", "--db", "care", sample], in: folder)
        #expect(put.status == 0, "\(put.stderr)")
        let run = try await CLIRunner.run(
            ["care", "outcomes", "--task", "steps", "--from", "2024-03-01T00:00:00Z", "--to", "2024-03-02T00:00:00Z",
             "--tz", "UTC"], in: folder)
        #expect(run.status == 2)
        #expect(run.stderr.contains("incompatibleUnits") && run.stderr.contains("\"id\":\"odd\""))
    }
}
