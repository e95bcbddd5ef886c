import CloudantTestSupport
import Foundation
import Testing

/// Where a user types `--data DIR`: before the command (`cloudant --data DIR db list`) or after it
/// (`cloudant db list --data DIR`).
enum DataPlacement: String, CaseIterable, Sendable {
    case beforeTheCommand, afterTheCommand
}

/// One command as a user runs it against a data folder that is not the working directory's default, so a
/// command that ignored `--data` would read or write `./cloudant-data` and fail its checks.
struct CommandScenario: Sendable, CustomTestStringConvertible {
    /// The command path, as in `cloudant care events`.
    let command: String
    /// Runs the scenario: `cloudant` runs one command line with `--data` placed as the test says, `folder` is the
    /// working directory and `data` the data folder.
    let script: @Sendable (_ cloudant: Cloudant, _ folder: URL, _ data: URL) async throws -> Void

    var testDescription: String { command }

    /// Runs `cloudant` with `--data DIR` placed before or after the rest of the command line.
    struct Cloudant {
        let placement: DataPlacement
        let data: URL
        let folder: URL

        @discardableResult
        func callAsFunction(_ arguments: [String], stdin: String? = nil) async throws -> CLIRunner.Output {
            let data = ["--data", self.data.path]
            let line = placement == .beforeTheCommand ? data + arguments : arguments + data
            return try await CLIRunner.run(line, stdin: stdin, in: folder)
        }

        /// Runs and expects success, returning standard output.
        func ok(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
            async throws -> String
        {
            let output = try await self(arguments, stdin: stdin)
            #expect(output.status == 0, "\(arguments): \(output.stderr)", sourceLocation: sourceLocation)
            return output.stdout
        }
    }
}

private let plan = #"{"id":"diabetes","title":"Diabetes","effectiveDate":"2024-01-01T00:00:00Z"}"#
private let task = """
    {"id":"meds","title":"Meds","effectiveDate":"2024-01-01T00:00:00Z",
     "schedule":{"elements":[{"start":"2024-01-01T08:00:00Z","interval":{"day":1},
       "duration":{"isAllDay":false,"seconds":3600},"targetValues":[]}]}}
    """
private let note = #"{"_id":"hello","text":"world"}"#

private func exists(_ data: URL, _ store: String) -> Bool {
    FileManager.default.fileExists(atPath: data.appendingPathComponent("\(store).sqlite").path)
}

/// Every command of the CLI, each with what proves it used the data folder it was given.
let everyCommand: [CommandScenario] = [
    CommandScenario(command: "db create") { cloudant, _, data in
        _ = try await cloudant.ok(["db", "create", "x"])
        #expect(exists(data, "x"))
    },
    CommandScenario(command: "db list") { cloudant, _, _ in
        _ = try await cloudant.ok(["db", "create", "x"])
        #expect(try await cloudant.ok(["db", "list"]).contains(#"["x"]"#))
    },
    CommandScenario(command: "db info") { cloudant, _, _ in
        _ = try await cloudant.ok(["db", "create", "x"])
        #expect(try jsonObject(try await cloudant.ok(["db", "info", "x"]))["db_name"] as? String == "x")
    },
    CommandScenario(command: "db check") { cloudant, _, _ in
        _ = try await cloudant.ok(["db", "create", "x"])
        #expect(try jsonObject(try await cloudant.ok(["db", "check", "x"]))["ok"] as? Bool == true)
    },
    CommandScenario(command: "db delete") { cloudant, _, data in
        _ = try await cloudant.ok(["db", "create", "x"])
        _ = try await cloudant.ok(["db", "delete", "x"])
        #expect(!exists(data, "x"))
    },
    CommandScenario(command: "put") { cloudant, _, data in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        #expect(exists(data, "notes"))
    },
    CommandScenario(command: "get") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        #expect(try jsonObject(try await cloudant.ok(["get", "--db", "notes", "hello"]))["text"] as? String == "world")
    },
    CommandScenario(command: "delete") { cloudant, _, _ in
        let rev = try #require(try jsonObject(try await cloudant.ok(["put", "--db", "notes", note]))["rev"] as? String)
        _ = try await cloudant.ok(["delete", "--db", "notes", "hello", "--rev", rev])
        #expect(try await cloudant(["get", "--db", "notes", "hello"]).status == 3)
    },
    CommandScenario(command: "bulk") { cloudant, folder, data in
        let file = folder.appendingPathComponent("docs.jsonl")
        try (note + "\n" + #"{"_id":"other"}"#).write(to: file, atomically: true, encoding: .utf8)
        _ = try await cloudant.ok(["bulk", "--db", "notes", file.path])
        #expect(exists(data, "notes"))
    },
    CommandScenario(command: "changes") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        #expect((try jsonObject(try await cloudant.ok(["changes", "--db", "notes"]))["results"] as? [Any])?.count == 1)
    },
    CommandScenario(command: "find") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        let found = try jsonObject(try await cloudant.ok(["find", "--db", "notes", #"{"text":"world"}"#]))
        #expect((found["docs"] as? [Any])?.count == 1)
    },
    CommandScenario(command: "explain") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        let plan = try jsonObject(try await cloudant.ok(["explain", "--db", "notes", #"{"text":"world"}"#]))
        #expect(plan["dbname"] as? String == "notes")
    },
    CommandScenario(command: "index create") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        let created = try jsonObject(try await cloudant.ok(["index", "create", "--db", "notes", "text", "--name", "by-text"]))
        #expect(created["result"] as? String == "created")
    },
    CommandScenario(command: "index list") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        #expect(try await cloudant.ok(["index", "list", "--db", "notes"]).contains("_all_docs"))
    },
    CommandScenario(command: "index delete") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        _ = try await cloudant.ok(["index", "create", "--db", "notes", "text", "--name", "by-text", "--ddoc", "by-text"])
        _ = try await cloudant.ok(["index", "delete", "--db", "notes", "by-text", "by-text"])
        #expect(!(try await cloudant.ok(["index", "list", "--db", "notes"]).contains("by-text")))
    },
    CommandScenario(command: "replicate") { cloudant, _, data in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        #expect(try jsonObject(try await cloudant.ok(["replicate", "notes", "copy"]))["docs_written"] as? Int == 1)
        #expect(exists(data, "copy"))
    },
    CommandScenario(command: "compact") { cloudant, _, _ in
        _ = try await cloudant.ok(["put", "--db", "notes", note])
        #expect(try jsonObject(try await cloudant.ok(["compact", "--db", "notes"]))["ok"] as? Bool == true)
    },
    CommandScenario(command: "version") { cloudant, _, _ in
        let version = try jsonObject(try await cloudant.ok(["version", "--json"]))
        #expect(version["cloudant"] is String)
    },
    CommandScenario(command: "serve") { cloudant, folder, data in
        // `serve` runs until stopped, so it is started here rather than run to its end.
        let option = ["--data", data.path]
        let arguments = ["serve", "--port", "0"]
        let line = cloudant.placement == .beforeTheCommand ? option + arguments : arguments + option
        let server = try await ServeProcess.start(line, in: folder)
        #expect(server.ready["data"] as? String == data.path)
        #expect(server.url.hasPrefix("http://127.0.0.1:"))
    },
    CommandScenario(command: "care add") { cloudant, _, data in
        _ = try await cloudant.ok(["care", "add", "careplan"], stdin: plan)
        #expect(exists(data, "care"))
    },
    CommandScenario(command: "care update") { cloudant, _, _ in
        _ = try await cloudant.ok(["care", "add", "careplan"], stdin: plan)
        let updated = try jsonObject(try await cloudant.ok(["care", "update", "careplan"], stdin: plan))
        #expect((updated["previousVersionUUIDs"] as? [String])?.count == 1)
    },
    CommandScenario(command: "care events") { cloudant, _, _ in
        _ = try await cloudant.ok(["care", "add", "task"], stdin: task)
        let events = try jsonArray(
            try await cloudant.ok([
                "care", "events", "--task", "meds", "--from", "2024-01-02T00:00:00Z", "--to", "2024-01-04T00:00:00Z",
            ]))
        #expect(events.map { $0["occurrence"] as? Int } == [1, 2])
    },
    CommandScenario(command: "care list") { cloudant, _, _ in
        _ = try await cloudant.ok(["care", "add", "careplan"], stdin: plan)
        let plans = try jsonArray(try await cloudant.ok(["care", "list", "careplan", "--at", "2024-02-01T00:00:00Z"]))
        #expect(plans.map { $0["id"] as? String } == ["diabetes"])
    },
    CommandScenario(command: "health import") { cloudant, folder, data in
        let export = try await GeneratedHealthExport(in: folder, records: 40, seed: 5)
        _ = try await cloudant.ok(["health", "import", export.zipFile.path])
        #expect(exists(data, "health"))
    },
    CommandScenario(command: "health samples") { cloudant, folder, _ in
        let export = try await GeneratedHealthExport(in: folder, records: 40, seed: 5)
        _ = try await cloudant.ok(["health", "import", export.exportFolder.path])
        let type = "HKQuantityTypeIdentifierHeartRate"
        let samples = try jsonArray(try await cloudant.ok(["health", "samples", "--type", type]))
        #expect(samples.count == export.counts("records_by_type")[type] ?? 0)
    },
    CommandScenario(command: "health import export.xml") { cloudant, _, data in
        let bare = HealthFixtures.folder("ios13").appendingPathComponent("export.xml")
        let report = try jsonObject(try await cloudant.ok(["health", "import", bare.path, "--db", "bare"]))
        #expect(report["documentsNew"] as? Int == 14 && report["cdaDocuments"] as? Int == 1)
        #expect(exists(data, "bare"))
    },
    CommandScenario(command: "health import -") { cloudant, _, data in
        let xml = try String(contentsOf: HealthFixtures.folder("ios17").appendingPathComponent("export.xml"), encoding: .utf8)
        let report = try jsonObject(try await cloudant.ok(["health", "import", "-", "--db", "piped"], stdin: xml))
        #expect(report["genericSamplesByType"] as? [String: Int] == ["HKDataTypeSleepDurationGoal": 2, "HKQuantityTypeIdentifierBodyMass": 1])
        #expect(exists(data, "piped"))
    },
    CommandScenario(command: "health stats") { cloudant, _, _ in
        _ = try await cloudant.ok(["health", "import", HealthFixtures.folder("ios15").path, "--db", "steps"])
        let stats = try jsonObject(try await cloudant.ok([
            "health", "stats", "--db", "steps", "--type", "HKQuantityTypeIdentifierStepCount", "--from", "2022-05-09",
            "--to", "2022-05-10", "--by", "day", "--unit", "count", "--tz", "America/New_York",
        ]))
        #expect(stats["total"] as? Double == 1600 && stats["unit"] as? String == "count")
        #expect((stats["buckets"] as? [[String: Any]])?.map { $0["start"] as? String } == ["2022-05-09T00:00:00-04:00"])
    },
    CommandScenario(command: "cda") { cloudant, folder, _ in
        let export = try await GeneratedHealthExport(in: folder, records: 10, seed: 5)
        #expect(try jsonObject(try await cloudant.ok(["cda", export.cdaFile.path]))["title"] is String)
    },
    CommandScenario(command: "route export") { cloudant, folder, _ in
        let export = try await GeneratedHealthExport(
            in: folder, records: 60, seed: 3, extra: ["--workouts-per-10k", "2000", "--route-points", "3"])
        _ = try await cloudant.ok(["health", "import", export.exportFolder.path])
        let routes = try jsonArray(try await cloudant.ok(["health", "samples", "--type", "HKWorkoutRouteTypeIdentifier"]))
        let workout = try #require(routes.first { ($0["locations"] as? [Any])?.isEmpty == false }?["workoutID"] as? String)
        #expect(try await cloudant.ok(["route", "export", "--workout", workout, "--gpx"]).contains("<trkpt"))
    },
]

/// The global options of the CLI contract: `--data DIR` before or after every command.
@Suite("cloudant global options")
struct GlobalOptionsTests {
    @Test(arguments: everyCommand, DataPlacement.allCases)
    func dataFolderIsUsedWhereverItIsTyped(_ scenario: CommandScenario, _ placement: DataPlacement) async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("elsewhere")
        try await scenario.script(.init(placement: placement, data: data, folder: folder), folder, data)
        // The default folder is never touched.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("cloudant-data").path))
    }

    @Test func theSameFolderTwiceIsAcceptedAndTwoDifferentFoldersAreInvalidInput() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let same = try await CLIRunner.run(["--data", "d", "db", "create", "x", "--data", "d"], in: folder)
        #expect(same.status == 0, "\(same.stderr)")
        let different = try await CLIRunner.run(["--data", "a", "db", "list", "--data", "b"], in: folder)
        #expect(different.status == 2)
        #expect(different.stdout.isEmpty)
        #expect(different.stderr.contains("--data was given more than once with different folders (a, b)"))
    }

    @Test func dataBetweenAGroupAndItsSubcommandIsAcceptedToo() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["care", "--data", "d", "add", "careplan"], stdin: plan, in: folder).status == 0)
        let listed = try await CLIRunner.run(["db", "--data", "d", "list"], in: folder)
        #expect(listed.stdout.contains(#"["care"]"#), "\(listed.stderr)")
    }

    @Test func careCommandsDefaultToTheCareStoreAndHealthCommandsToTheHealthStore() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["care", "add", "careplan"], stdin: plan, in: folder).status == 0)
        #expect(try await CLIRunner.run(["db", "list"], in: folder).stdout.contains(#"["care"]"#))
        // Reading commands name the default store they looked for.
        let samples = try await CLIRunner.run(["health", "samples", "--type", "HKQuantityTypeIdentifierStepCount"], in: folder)
        try samples.expectError(status: 3, ["db": "health"])
        let route = try await CLIRunner.run(["route", "export", "--workout", "w", "--gpx"], in: folder)
        #expect(try jsonObject(route.stderr)["db"] as? String == "health")
        for command in [["care", "add", "task"], ["care", "update", "task"], ["care", "events"], ["care", "list", "task"],
            ["health", "import"], ["health", "samples"], ["health", "stats"], ["route", "export"]] {
            // Help wraps at 80 columns; compare with the line breaks folded into spaces.
            let help = try await CLIRunner.run(command + ["--help"], in: folder).stdout
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.contains("(default: \(command[0] == "care" ? "care" : "health"))"), "\(command)")
        }
    }
}
