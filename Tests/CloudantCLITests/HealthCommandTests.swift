import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Parses CLI output that is a JSON array of objects.
func jsonArray(_ text: String) throws -> [[String: Any]] {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(value as? [[String: Any]])
}

extension GeneratedHealthExport {
    /// The export the command tests import: `records` records from `seed` in `folder/export`, zipped, with short
    /// routes (7 points) and a workout every 167 records, so a small export still has routes.
    init(in folder: URL, records: Int, seed: Int, extra: [String] = []) async throws {
        self = try await .make(
            records: records, seed: seed,
            extra: ["--route-points", "7", "--workouts-per-10k", "60", "--zip"] + extra,
            in: folder.appendingPathComponent("export"))
    }

    /// A member of `expected.json` as Foundation JSON, to compare with the CLI's output.
    func expectedObject(_ key: String) throws -> [String: Any] {
        let member = expected[key] ?? .null
        return try JSONSerialization.jsonObject(with: Data(member.jsonBytes())) as? [String: Any] ?? [:]
    }
}

@Suite("cloudant health, cda and route commands")
struct HealthCommandTests {
    @Test func importReportsTheGeneratorsExactCountsAndReimportWritesNothing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(in: folder, records: 1500, seed: 7)

        let first = try await CLIRunner.run(["health", "import", export.zipFile.path, "--batch-size", "300"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try jsonObject(first.stdout)
        #expect(report["recordsRead"] as? Int == export.count("records_total"))
        #expect(report["samplesByType"] as? [String: Int] == export.counts("records_by_type"))
        #expect(report["correlationsByType"] as? [String: Int] == export.counts("correlations_by_type"))
        #expect(report["workoutsByType"] as? [String: Int] == export.counts("workouts_by_type"))
        #expect(report["workoutRoutes"] as? Int == export.count("workout_routes"))
        #expect(report["routePoints"] as? Int == export.count("gpx_points"))
        #expect(report["cdaDocuments"] as? Int == 1)
        #expect(report["activitySummaries"] as? Int == export.count("activity_summaries"))
        #expect(report["clinicalRecordsByType"] as? [String: Int] == export.counts("clinical_records_by_type"))
        #expect(report["documentsUnchanged"] as? Int == 0)
        #expect(first.stderr.contains("Apple Health import") && first.stderr.contains("records read"))
        #expect(first.stderr.contains("activity summaries") && first.stderr.contains("clinical records"))

        let again = try await CLIRunner.run(["health", "import", export.exportFolder.path, "--db", "health"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        let second = try jsonObject(again.stdout)
        #expect(second["documentsWritten"] as? Int == 0)
        #expect(second["documentsUnchanged"] as? Int == report["documentsWritten"] as? Int)
    }

    /// A damaged export imports what libxml2 could read and exits non-zero, never 0 after stopping half-way.
    @Test(arguments: ["cut short", "broken tag"])
    func aDamagedExportImportsWhatItCanAndExitsNonZero(_ damage: String) async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(in: folder, records: 300, seed: 3)
        let file = export.exportFolder.appendingPathComponent("export.xml")
        var text = try String(contentsOf: file, encoding: .utf8)
        if damage == "cut short" {
            text = String(text.prefix(text.count / 2))
        } else {
            let middle = try #require(text.range(of: "<Record", range: text.index(text.startIndex, offsetBy: text.count / 3)..<text.endIndex))
            text.insert(contentsOf: "<Record type=\"x\" <<< broken\n", at: middle.lowerBound)
        }
        try text.write(to: file, atomically: true, encoding: .utf8)

        let result = try await CLIRunner.run(["health", "import", export.exportFolder.path], in: folder)
        #expect(result.status == 2, "a partial import must not exit 0; a damaged export is invalid input")
        let report = try jsonObject(result.stdout)
        let stop = try #require(report["stoppedEarly"] as? [String: Any])
        #expect((stop["line"] as? Int ?? 0) > 1)
        #expect((stop["file"] as? String)?.hasSuffix("export.xml") == true)
        #expect((report["documentsWritten"] as? Int ?? 0) > 0, "what came before the damage is imported")
        let error = try #require(result.stderr.split(separator: "\n").last.map { try jsonObject(String($0)) })
        #expect((error["reason"] as? String)?.contains("could not be read past line") == true)
        #expect(result.stderr.contains("INCOMPLETE"))
    }

    @Test func aCutShortExportExitsTwoAndImportingTheWholeFileContinuesAndCompletesIt() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(in: folder, records: 600, seed: 4)
        let file = export.exportFolder.appendingPathComponent("export.xml")
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count / 2).write(to: file)
        let cut = try await CLIRunner.run(["health", "import", file.path, "--batch-size", "100"], in: folder)
        #expect(cut.status == 2, "\(cut.stderr)")
        let partial = try jsonObject(cut.stdout)
        #expect(partial["stoppedEarly"] is [String: Any])
        // The download finished: the same command continues after what was committed.
        try whole.write(to: file)
        let rerun = try await CLIRunner.run(["health", "import", file.path, "--batch-size", "100"], in: folder)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let report = try jsonObject(rerun.stdout)
        #expect(report["resumedFrom"] is [String: Any])
        #expect(report["recordsRead"] as? Int == export.count("records_total"))
        #expect(report["samplesByType"] as? [String: Int] == export.counts("records_by_type"))
        #expect(rerun.stderr.contains("resumed after line"))
        let again = try jsonObject(try await CLIRunner.run(["health", "import", export.zipFile.path], in: folder).stdout)
        #expect(again["documentsNew"] as? Int == 0 && again["documentsChanged"] as? Int == 0)
    }

    @Test func importTakesABareExportXMLOrStandardInputAndRefusesWhatIsNotAnExport() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bare = try await CLIRunner.run(["health", "import", HealthFixtures.folder("ios13").appendingPathComponent("export.xml").path],
                                     in: folder)
        #expect(bare.status == 0, "\(bare.stderr)")
        let report = try jsonObject(bare.stdout)
        #expect(report["documentsNew"] as? Int == 14, "the side files beside export.xml were read too")
        #expect(report["routePoints"] as? Int == 4 && report["cdaDocuments"] as? Int == 1)

        let xml = try String(contentsOf: HealthFixtures.folder("ios17").appendingPathComponent("export.xml"), encoding: .utf8)
        let piped = try await CLIRunner.run(["health", "import", "-", "--db", "piped"], stdin: xml, in: folder)
        #expect(piped.status == 0, "\(piped.stderr)")
        let fromStdin = try jsonObject(piped.stdout)
        #expect(fromStdin["genericSamplesByType"] as? [String: Int] == ["HKDataTypeSleepDurationGoal": 2, "HKQuantityTypeIdentifierBodyMass": 1])
        let skipped = try #require(fromStdin["skipped"] as? [[String: Any]])
        #expect(skipped.count == 2 && skipped.allSatisfy { ($0["file"] as? String)?.hasPrefix("standard input") == true })
        #expect(piped.stderr.contains("kept as generic samples") && piped.stderr.contains("standard input:"))

        let note = folder.appendingPathComponent("note.xml")
        try "<note><to>Tove</to></note>".write(to: note, atomically: true, encoding: .utf8)
        let refused = try await CLIRunner.run(["health", "import", note.path, "--db", "refused"], in: folder)
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        let error = try jsonObject(refused.stderr)
        #expect(error["error"] as? String == "bad_request" && error["code"] as? String == "invalidHealthExport")
        #expect(error["field"] as? String == note.path)
        #expect((error["reason"] as? String)?.contains("is not an Apple Health export") == true)
        #expect((error["reason"] as? String)?.contains("line 1") == true)
        let missing = try await CLIRunner.run(["health", "import", folder.appendingPathComponent("nope.zip").path], in: folder)
        #expect(missing.status == 3)
    }

    @Test func statsSumsStepsOnceAcrossTwoSourcesAndAveragesHeartRates() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["health", "import", HealthFixtures.folder("ios15").path], in: folder).status == 0)
        let steps = ["health", "stats", "--type", "HKQuantityTypeIdentifierStepCount", "--from", "2022-05-09",
                     "--to", "2022-05-10", "--by", "hour", "--tz", "America/New_York"]
        let result = try await CLIRunner.run(steps, in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try jsonObject(result.stdout)
        #expect(stats["aggregation"] as? String == "cumulative" && stats["unit"] as? String == "count")
        #expect(stats["total"] as? Double == 1600, "the Watch's 1200 and the iPhone's 400 at noon; not the iPhone's 1100 again")
        let buckets = try #require(stats["buckets"] as? [[String: Any]])
        #expect(buckets.count == 24)
        #expect(buckets[9]["start"] as? String == "2022-05-09T09:00:00-04:00" && buckets[9]["sum"] as? Double == 1200)
        #expect(buckets[9]["sources"] as? [String] == ["Lee’s Apple Watch"])
        #expect(buckets[12]["sum"] as? Double == 400 && buckets[12]["sources"] as? [String] == ["Lee’s iPhone"])
        // The iPhone first: its 1100 and the Watch's two uncovered minutes (240 of 1200), then the noon 400.
        let phoneFirst = try jsonObject(try await CLIRunner.run(steps + ["--source-priority", "Lee’s iPhone"], in: folder).stdout)
        #expect(phoneFirst["total"] as? Double == 1740)
        let daily = try jsonObject(try await CLIRunner.run(
            ["health", "stats", "--type", "HKQuantityTypeIdentifierStepCount", "--from", "2022-05-01", "--to", "2022-05-16",
             "--by", "week", "--tz", "America/New_York"], in: folder).stdout)
        #expect((daily["buckets"] as? [[String: Any]])?.map { $0["start"] as? String } == [
            "2022-05-01T00:00:00-04:00", "2022-05-02T00:00:00-04:00", "2022-05-09T00:00:00-04:00",
        ])
        let bad = try await CLIRunner.run(Array(steps.dropLast(2)) + ["--tz", "Mars/Olympus"], in: folder)
        #expect(bad.status == 2)
        let unit = try await CLIRunner.run(steps + ["--unit", "kg"], in: folder)
        try unit.expectError(status: 2, ["code": "incompatibleUnits"])
        let nothing = try await CLIRunner.run(steps + ["--db", "absent"], in: folder)
        #expect(nothing.status == 3)
    }

    @Test func samplesPrintEachTimeAsItWasWrittenBesideTheInstant() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["health", "import", HealthFixtures.folder("ios16").path], in: folder).status == 0)
        let sleep = try jsonArray(try await CLIRunner.run(
            ["health", "samples", "--type", "HKCategoryTypeIdentifierSleepAnalysis"], in: folder).stdout)
        #expect(sleep.map { $0["startLocal"] as? String } == ["2022-10-15T01:20:00+02:00", "2022-10-19T02:10:00-07:00"])
        #expect(sleep.map { $0["startDate"] as? String } == ["2022-10-14T23:20:00.000Z", "2022-10-19T09:10:00.000Z"])
        #expect(sleep.map { $0["startUTCOffset"] as? Int } == [7200, -25200])
    }

    @Test func samplesAreFilteredByTypeAndStartDate() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(in: folder, records: 800, seed: 8)
        #expect(try await CLIRunner.run(["health", "import", export.exportFolder.path, "--db", "me"], in: folder).status == 0)

        let type = "HKQuantityTypeIdentifierHeartRate"
        let all = try jsonArray(try await CLIRunner.run(["health", "samples", "--db", "me", "--type", type], in: folder).stdout)
        #expect(all.count == export.counts("records_by_type")[type])
        #expect(all.allSatisfy { $0["typeIdentifier"] as? String == type })
        let starts = all.compactMap { $0["startDate"] as? String }
        #expect(starts.count == all.count)
        let from = starts[starts.count / 4], to = starts[starts.count * 3 / 4]
        let firstFrom = try #require(starts.firstIndex(of: from)), firstTo = try #require(starts.firstIndex(of: to))

        let tail = try await CLIRunner.run(["health", "samples", "--db", "me", "--type", type, "--from", from], in: folder)
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(try jsonArray(tail.stdout).count == starts.count - firstFrom)
        let middle = try await CLIRunner.run(
            ["health", "samples", "--db", "me", "--type", type, "--from", from, "--to", to], in: folder)
        #expect(try jsonArray(middle.stdout).count == firstTo - firstFrom)

        let badDate = try await CLIRunner.run(["health", "samples", "--db", "me", "--type", type, "--from", "June"], in: folder)
        #expect(badDate.status != 0)
        #expect(try jsonObject(badDate.stderr)["error"] as? String == "bad_request")
        let missing = try await CLIRunner.run(["health", "samples", "--db", "nope", "--type", type], in: folder)
        #expect(missing.status != 0)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found")
    }

    @Test func cdaPrintsHealthKitsFieldNamesAndRefusesOtherXML() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(
            in: folder, records: 100, seed: 9, extra: ["--cda-entries", "4", "--cda-patient-name", "Jane Appleseed"])
        let cda = try export.expectedObject("export_cda_xml")

        let result = try await CLIRunner.run(["cda", export.cdaFile.path], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try jsonObject(result.stdout)
        #expect(document["title"] as? String == cda["title"] as? String)
        #expect(document["effectiveTime"] as? String == cda["effective_time"] as? String)
        #expect(document["patientName"] as? String == cda["patient_name"] as? String)
        for key in ["patientName", "authorName", "custodianName", "documentType", "sections"] {
            #expect(document.keys.contains(key), "missing \(key)")
        }
        let type = try #require(document["documentType"] as? [String: Any])
        #expect((type["templateIDs"] as? [String])?.contains("2.16.840.1.113883.10.20.22.1.2") == true)
        #expect((type["code"] as? [String: Any])?["code"] as? String == "34109-9")
        let sections = try #require(document["sections"] as? [[String: Any]])
        #expect(sections.first?["kind"] as? String == "vitalSigns")
        let entry = try #require((sections.first?["entries"] as? [[String: Any]])?.first)
        #expect((entry["code"] as? [String: Any])?["displayName"] is String)
        #expect(entry["value"] is String && entry["unit"] is String)
        #expect((entry["time"] as? [String: Any])?["text"] is String)

        let other = folder.appendingPathComponent("note.xml")
        try #"<?xml version="1.0"?><note><to>Tove</to></note>"#.write(to: other, atomically: true, encoding: .utf8)
        let refused = try await CLIRunner.run(["cda", other.path], in: folder)
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        let error = try jsonObject(refused.stderr)
        #expect(error["error"] as? String == "bad_request")
        #expect((error["reason"] as? String)?.isEmpty == false)
    }

    @Test func cdaRefusesMalformedXMLAndFragmentsWithTheErrorOnStandardError() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = [
            ("plain.txt", "this is not XML at all", "not well-formed"),
            ("section.xml", #"<section xmlns="urn:hl7-org:v3"><title>Problems</title></section>"#, "fragment"),
            ("elsewhere.xml", "<ClinicalDocument><title>t</title></ClinicalDocument>", "urn:hl7-org:v3"),
        ]
        for (name, text, why) in inputs {
            let file = folder.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            let refused = try await CLIRunner.run(["cda", file.path], in: folder)
            #expect(refused.status != 0, "\(name)")
            #expect(refused.stdout.isEmpty, "\(name)")
            let error = try jsonObject(refused.stderr)
            #expect(error["error"] as? String == "bad_request", "\(name)")
            #expect((error["reason"] as? String)?.contains(why) == true, "\(name): \(refused.stderr)")
        }
        let missing = try await CLIRunner.run(["cda", folder.appendingPathComponent("absent.xml").path], in: folder)
        #expect(missing.status != 0 && missing.stdout.isEmpty)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found")
    }

    @Test func cdaReadsAnAppleExportThatGoesOnAfterTheDocumentAndSaysItRecovered() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(in: folder, records: 100, seed: 11, extra: ["--quirk", "cda-trailing-junk"])
        let cda = try export.expectedObject("export_cda_xml")

        let result = try await CLIRunner.run(["cda", export.cdaFile.path], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try jsonObject(result.stdout)
        #expect(document["title"] as? String == cda["title"] as? String)
        #expect((document["recoveredErrors"] as? [String])?.first?.contains("Extra content") == true)
        #expect(result.stderr.contains("warning"))
    }

    @Test func routeExportWritesTheWorkoutsPointsAsGPX() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (export, routes, workoutID, points) = try await importedWorkoutRoute(in: folder, db: "health")
        #expect(routes.count == export.count("workout_routes"))

        let gpx = try await CLIRunner.run(["route", "export", "--db", "health", "--workout", workoutID, "--gpx"], in: folder)
        #expect(gpx.status == 0, "\(gpx.stderr)")
        #expect(gpx.stdout.contains("<gpx") && gpx.stdout.contains("version=\"1.1\""))
        #expect(gpx.stdout.components(separatedBy: "<trkpt ").count - 1 == points)

        let unknown = try await CLIRunner.run(["route", "export", "--db", "health", "--workout", "nope", "--gpx"], in: folder)
        #expect(unknown.status != 0)
        #expect(try jsonObject(unknown.stderr)["error"] as? String == "not_found")
    }
}

/// Imports a generated export (1,500 records, seed 10) into `db` (the default store when nil) and lists its workout
/// routes: returns the export, the routes, the first workout with a located route, and its points over all its
/// routes.
func importedWorkoutRoute(in folder: URL, db: String? = nil) async throws
    -> (export: GeneratedHealthExport, routes: [[String: Any]], workoutID: String, points: Int)
{
    let export = try await GeneratedHealthExport(in: folder, records: 1500, seed: 10)
    #expect(try await CLIRunner.run(["health", "import", export.exportFolder.path], in: folder).status == 0)
    let store = db.map { ["--db", $0] } ?? []
    let routes = try jsonArray(
        try await CLIRunner.run(["health", "samples"] + store + ["--type", "HKWorkoutRouteTypeIdentifier"], in: folder).stdout)
    let route = try #require(routes.first { ($0["locations"] as? [Any])?.isEmpty == false })
    let workoutID = try #require(route["workoutID"] as? String)
    let points = routes.filter { $0["workoutID"] as? String == workoutID }
        .reduce(0) { $0 + (($1["locations"] as? [Any])?.count ?? 0) }
    return (export, routes, workoutID, points)
}

/// The hand-written exports of `Tests/Fixtures/HealthExports/`.
enum HealthFixtures {
    static func folder(_ name: String) -> URL {
        RepositoryFiles.fixtures("HealthExports").appendingPathComponent("\(name)/apple_health_export")
    }
}
