import ChildProcessSupport
import Foundation
import Testing

/// Parses CLI output that is a JSON array of objects.
func jsonArray(_ text: String) throws -> [[String: Any]] {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(value as? [[String: Any]])
}

/// An Apple Health export written by `/work/shared/tools/gen_health_export.py` (or `GEN_HEALTH_EXPORT`) into
/// `folder/export`, with the generator's `expected.json`.
struct GeneratedHealthExport {
    let root: URL
    let expected: [String: Any]

    var exportFolder: URL { root.appendingPathComponent("apple_health_export") }
    var zipFile: URL { root.appendingPathComponent("export.zip") }
    var cdaFile: URL { exportFolder.appendingPathComponent("export_cda.xml") }

    init(in folder: URL, records: Int, seed: Int, extra: [String] = []) throws {
        root = folder.appendingPathComponent("export")
        let generator = ProcessInfo.processInfo.environment["GEN_HEALTH_EXPORT"] ?? "/work/shared/tools/gen_health_export.py"
        let generated = try ChildProcess.run("/usr/bin/env", [
            "python3", generator, "--records", "\(records)", "--seed", "\(seed)", "--route-points", "7",
            "--workouts-per-10k", "60", "--zip", "--out", root.path,
        ] + extra)
        #expect(generated.status == 0, "gen_health_export.py failed: \(String(decoding: generated.stderr, as: UTF8.self))")
        expected = try jsonObject(String(decoding: Data(contentsOf: root.appendingPathComponent("expected.json")), as: UTF8.self))
    }

    func count(_ key: String) -> Int { expected[key] as? Int ?? -1 }
    func counts(_ key: String) -> [String: Int] { expected[key] as? [String: Int] ?? [:] }
}

@Suite("cloudant health, cda and route commands")
struct HealthCommandTests {
    @Test func importReportsTheGeneratorsExactCountsAndReimportWritesNothing() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try GeneratedHealthExport(in: folder, records: 1500, seed: 7)

        let first = try CLIRunner.run(["health", "import", export.zipFile.path, "--batch-size", "300"], in: folder)
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
        #expect(report["documentsAlreadyStored"] as? Int == 0)
        #expect(first.stderr.contains("Apple Health import") && first.stderr.contains("records read"))
        #expect(first.stderr.contains("activity summaries") && first.stderr.contains("clinical records"))

        let again = try CLIRunner.run(["health", "import", export.exportFolder.path, "--db", "health"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        let second = try jsonObject(again.stdout)
        #expect(second["documentsWritten"] as? Int == 0)
        #expect(second["documentsAlreadyStored"] as? Int == report["documentsWritten"] as? Int)
    }

    /// Issue 16 row 8: an import exited 0 after libxml2 stopped half-way through a damaged export.
    @Test(arguments: ["cut short", "broken tag"])
    func aDamagedExportImportsWhatItCanAndExitsNonZero(_ damage: String) throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try GeneratedHealthExport(in: folder, records: 300, seed: 3)
        let file = export.exportFolder.appendingPathComponent("export.xml")
        var text = try String(contentsOf: file, encoding: .utf8)
        if damage == "cut short" {
            text = String(text.prefix(text.count / 2))
        } else {
            let middle = try #require(text.range(of: "<Record", range: text.index(text.startIndex, offsetBy: text.count / 3)..<text.endIndex))
            text.insert(contentsOf: "<Record type=\"x\" <<< broken\n", at: middle.lowerBound)
        }
        try text.write(to: file, atomically: true, encoding: .utf8)

        let result = try CLIRunner.run(["health", "import", export.exportFolder.path], in: folder)
        #expect(result.status == 2, "a partial import must not exit 0; a damaged export is invalid input")
        let report = try jsonObject(result.stdout)
        let stop = try #require(report["stoppedEarly"] as? [String: Any])
        #expect((stop["line"] as? Int ?? 0) > 1)
        #expect((report["documentsWritten"] as? Int ?? 0) > 0, "what came before the damage is imported")
        let error = try #require(result.stderr.split(separator: "\n").last.map { try jsonObject(String($0)) })
        #expect((error["reason"] as? String)?.contains("could not be read past line") == true)
        #expect(result.stderr.contains("INCOMPLETE"))
    }

    @Test func samplesAreFilteredByTypeAndStartDate() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try GeneratedHealthExport(in: folder, records: 800, seed: 8)
        #expect(try CLIRunner.run(["health", "import", export.exportFolder.path, "--db", "me"], in: folder).status == 0)

        let type = "HKQuantityTypeIdentifierHeartRate"
        let all = try jsonArray(try CLIRunner.run(["health", "samples", "--db", "me", "--type", type], in: folder).stdout)
        #expect(all.count == export.counts("records_by_type")[type])
        #expect(all.allSatisfy { $0["typeIdentifier"] as? String == type })
        let starts = all.compactMap { $0["startDate"] as? String }
        #expect(starts.count == all.count)
        let from = starts[starts.count / 4], to = starts[starts.count * 3 / 4]
        let firstFrom = try #require(starts.firstIndex(of: from)), firstTo = try #require(starts.firstIndex(of: to))

        let tail = try CLIRunner.run(["health", "samples", "--db", "me", "--type", type, "--from", from], in: folder)
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(try jsonArray(tail.stdout).count == starts.count - firstFrom)
        let middle = try CLIRunner.run(
            ["health", "samples", "--db", "me", "--type", type, "--from", from, "--to", to], in: folder)
        #expect(try jsonArray(middle.stdout).count == firstTo - firstFrom)

        let badDate = try CLIRunner.run(["health", "samples", "--db", "me", "--type", type, "--from", "June"], in: folder)
        #expect(badDate.status != 0)
        #expect(try jsonObject(badDate.stderr)["error"] as? String == "bad_request")
        let missing = try CLIRunner.run(["health", "samples", "--db", "nope", "--type", type], in: folder)
        #expect(missing.status != 0)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found")
    }

    @Test func cdaPrintsHealthKitsFieldNamesAndRefusesOtherXML() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try GeneratedHealthExport(
            in: folder, records: 100, seed: 9, extra: ["--cda-entries", "4", "--cda-patient-name", "Jane Appleseed"])
        let cda = export.expected["export_cda_xml"] as? [String: Any] ?? [:]

        let result = try CLIRunner.run(["cda", export.cdaFile.path], in: folder)
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
        let refused = try CLIRunner.run(["cda", other.path], in: folder)
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        let error = try jsonObject(refused.stderr)
        #expect(error["error"] as? String == "bad_request")
        #expect((error["reason"] as? String)?.isEmpty == false)
    }

    @Test func cdaRefusesMalformedXMLAndFragmentsWithTheErrorOnStandardError() throws {
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
            let refused = try CLIRunner.run(["cda", file.path], in: folder)
            #expect(refused.status != 0, "\(name)")
            #expect(refused.stdout.isEmpty, "\(name)")
            let error = try jsonObject(refused.stderr)
            #expect(error["error"] as? String == "bad_request", "\(name)")
            #expect((error["reason"] as? String)?.contains(why) == true, "\(name): \(refused.stderr)")
        }
        let missing = try CLIRunner.run(["cda", folder.appendingPathComponent("absent.xml").path], in: folder)
        #expect(missing.status != 0 && missing.stdout.isEmpty)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found")
    }

    @Test func cdaReadsAnAppleExportThatGoesOnAfterTheDocumentAndSaysItRecovered() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try GeneratedHealthExport(in: folder, records: 100, seed: 11, extra: ["--quirk", "cda-trailing-junk"])
        let cda = export.expected["export_cda_xml"] as? [String: Any] ?? [:]

        let result = try CLIRunner.run(["cda", export.cdaFile.path], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try jsonObject(result.stdout)
        #expect(document["title"] as? String == cda["title"] as? String)
        #expect((document["recoveredErrors"] as? [String])?.first?.contains("Extra content") == true)
        #expect(result.stderr.contains("warning"))
    }

    @Test func routeExportWritesTheWorkoutsPointsAsGPX() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try GeneratedHealthExport(in: folder, records: 1500, seed: 10)
        #expect(try CLIRunner.run(["health", "import", export.exportFolder.path], in: folder).status == 0)

        let routes = try jsonArray(
            try CLIRunner.run(["health", "samples", "--db", "health", "--type", "HKWorkoutRouteTypeIdentifier"], in: folder)
                .stdout)
        #expect(routes.count == export.count("workout_routes"))
        let route = try #require(routes.first { ($0["locations"] as? [Any])?.isEmpty == false })
        let workoutID = try #require(route["workoutID"] as? String)
        let points = routes.filter { $0["workoutID"] as? String == workoutID }
            .reduce(0) { $0 + (($1["locations"] as? [Any])?.count ?? 0) }

        let gpx = try CLIRunner.run(["route", "export", "--db", "health", "--workout", workoutID, "--gpx"], in: folder)
        #expect(gpx.status == 0, "\(gpx.stderr)")
        #expect(gpx.stdout.contains("<gpx") && gpx.stdout.contains("version=\"1.1\""))
        #expect(gpx.stdout.components(separatedBy: "<trkpt ").count - 1 == points)

        let unknown = try CLIRunner.run(["route", "export", "--db", "health", "--workout", "nope", "--gpx"], in: folder)
        #expect(unknown.status != 0)
        #expect(try jsonObject(unknown.stderr)["error"] as? String == "not_found")
    }
}
