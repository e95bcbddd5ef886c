import CloudantHealth
import Foundation

/// Importing a generated Apple Health `export.zip` into a fresh store, beside
/// healthkit-to-sqlite (PyPI) importing the same file into a fresh SQLite database, in the same run.
///
/// Each import runs in a child process so its peak memory can be read the same way for both tools
/// (`ru_maxrss` from `wait4`); ours is this executable re-run with ``childEnvironmentKey`` set. The export
/// comes from `gen_health_export.py` (untimed, cached per record count in the temporary folder).
///
/// Both tools import the zip, then the bare `export.xml` (healthkit-to-sqlite with `--xml`).
///
/// Targets: ≥ 10× healthkit-to-sqlite's records per second and peak memory ≤ 150 MB; then 12 µs per record
/// (12 s for a million) and ≤ 64 MB from either input, below the floor of the writes themselves (see
/// Benchmarks/README.md's findings).
enum HealthImportBenchmarks {
    /// Set in a child's environment to `input path` newline `store folder`: the child imports and exits.
    static let childEnvironmentKey = "CLOUDANT_BENCH_HEALTH_IMPORT"
    static let targetSpeedup = 10.0
    static let targetPeakBytes = 150 << 20
    static let targetSecondsPerRecord = 12e-6
    static let targetPeakBytesTight = 64 << 20

    static func run(records: Int, repetitions: Int) async throws {
        if let job = ProcessInfo.processInfo.environment[childEnvironmentKey] {
            try await importAsChild(job)
            exit(0)
        }
        let export = try generatedExport(records: records)
        let expected = try JSONValue(parsing: Data(contentsOf: export.appendingPathComponent("expected.json")))
        let zip = export.appendingPathComponent("export.zip")
        let recordsTotal = expected["records_total"]?.numberValue?.int64Value.map(Int.init) ?? records
        let zipBytes = (try? FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int) ?? 0

        let xml = export.appendingPathComponent("apple_health_export/export.xml")
        let peer = healthkitToSQLite()
        if peer == nil {
            print("\nhealthkit-to-sqlite not found (set HEALTHKIT_TO_SQLITE, put it on PATH or in /tmp/hk-venv/bin;"
                + " `pip install healthkit-to-sqlite`): the baseline is skipped")
        }
        for (inputName, input) in [("export.zip", zip), ("export.xml", xml)] {
            var tools: [(name: String, command: (URL) -> MeasuredProcess)] = []
            if let peer {
                let flags = input == xml ? ["-s", "--xml"] : ["-s"]
                tools.append(("healthkit-to-sqlite (PyPI)", { folder in
                    MeasuredProcess(executable: peer, arguments: flags + [input.path, folder.appendingPathComponent("hk.db").path])
                }))
            }
            tools.append(("AppleHealthImporter (cloudant)", { folder in
                MeasuredProcess(
                    executable: MeasuredProcess.currentExecutable, arguments: ["import"],
                    environment: [childEnvironmentKey: input.path + "\n" + folder.path])
            }))
            let bytes = (try? FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int) ?? zipBytes
            print(String(format: "\nHealth import: %@ of %d records (%.1f MB) into a fresh database, "
                + "each in a child process (untimed setup done)…", inputName, recordsTotal, Double(bytes) / 1_048_576))
            var times = Array(repeating: [Double](), count: tools.count)
            var peaks = Array(repeating: [Double](), count: tools.count)
            for _ in 0..<repetitions {
                // Interleaved, so drift in the machine's load hits both tools alike.
                for (index, tool) in tools.enumerated() {
                    let folder = Scratch.folder("health-import")
                    defer { Scratch.remove(folder) }
                    let outcome = try tool.command(folder).run()
                    guard outcome.exitStatus == 0 else {
                        throw BenchmarkFailure("\(tool.name) exited with status \(outcome.exitStatus)")
                    }
                    if index == tools.count - 1 { try check(outcome.output, expected: expected) }
                    times[index].append(outcome.seconds)
                    peaks[index].append(Double(outcome.peakResidentBytes))
                }
            }
            report(inputName, tools.map(\.name), times: times, peaks: peaks, records: recordsTotal, repetitions: repetitions,
                   hasBaseline: tools.count > 1)
        }
    }

    private static func report(
        _ input: String, _ names: [String], times: [[Double]], peaks: [[Double]], records: Int, repetitions: Int,
        hasBaseline: Bool
    ) {
        print("\nApple Health import of \(input)  (\(records) records, median of \(repetitions) runs, peak RSS = max over runs)")
        let medians = times.map(Statistics.median)
        for (index, name) in names.enumerated() {
            let peak = peaks[index].max() ?? 0
            var line = "  \(name.padding(toLength: 34, withPad: " ", startingAt: 0))"
            line += String(format: "%9.3f s  %9.0f records/s  peak RSS %7.1f MB", medians[index],
                           Double(records) / medians[index], peak / 1_048_576)
            if hasBaseline && index == 0 {
                line += "  (baseline)"
            } else if hasBaseline {
                let speedup = medians[0] / medians[index]
                line += String(format: "  %5.2f× faster (target ≥ %.0f×: %@)", speedup, targetSpeedup,
                               speedup >= targetSpeedup ? "met" : "MISSED")
                line += String(format: ", %.2f× its memory", peak / (peaks[0].max() ?? 1))
            }
            if index == names.count - 1 {
                line += peak <= Double(targetPeakBytes) ? "  (peak ≤ 150 MB: met)" : "  (peak ≤ 150 MB: MISSED)"
                let perRecord = medians[index] / Double(records)
                line += String(format: "\n    %.1f µs per record (target ≤ %.0f µs: %@), peak %@ 64 MB",
                               perRecord * 1e6, targetSecondsPerRecord * 1e6, perRecord <= targetSecondsPerRecord ? "met" : "MISSED",
                               peak <= Double(targetPeakBytesTight) ? "≤ (met)" : "> (MISSED)")
            }
            print(line)
            if index == names.count - 1 {
                let perRecord = medians[index] / Double(records)
                MarkdownReport.shared.record(.init(
                    workload: "import of a generated \(input), \(records) records (median of \(repetitions); peak RSS "
                        + String(format: "%.1f MB", peak / 1_048_576) + ")",
                    ours: String(format: "%.1f s, %.0f records/s", medians[index], Double(records) / medians[index]),
                    baseline: hasBaseline
                        ? String(format: "healthkit-to-sqlite: %.1f s, peak RSS %.1f MB", medians[0], (peaks[0].max() ?? 0) / 1_048_576)
                        : "healthkit-to-sqlite: not installed",
                    ratio: hasBaseline ? String(format: "%.2f× faster", medians[0] / medians[index]) : "—",
                    target: "≥ 10× faster, ≤ 150 MB; then ≤ 12 µs a record and ≤ 64 MB ("
                        + String(format: "%.1f µs", perRecord * 1e6) + ")"))
            }
        }
    }

    /// The child's side: import, then print the report's counts as one JSON line for the parent to check.
    private static func importAsChild(_ job: String) async throws {
        let parts = job.split(separator: "\n", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw BenchmarkFailure("bad \(childEnvironmentKey) value") }
        let registry = try EntityRegistry(plugins: [HealthPlugin()])
        let store = try DocumentStore.open(
            name: "health", in: StoreDirectory(path: parts[1]), options: StoreOptions(registry: registry))
        let report = try await AppleHealthImporter(store: store).importExport(
            at: URL(fileURLWithPath: parts[0]), workDirectory: URL(fileURLWithPath: parts[1]))
        print(JSONValue.object([
            "recordsRead": .number(JSONNumber(report.recordsRead)),
            "documentsWritten": .number(JSONNumber(report.documentsWritten)),
            "skipped": .number(JSONNumber(report.skippedCount)),
        ]).jsonString())
    }

    /// Fails the benchmark when the import did not read every record the generator wrote.
    private static func check(_ output: String, expected: JSONValue) throws {
        guard let line = output.split(separator: "\n").last, let counts = try? JSONValue(parsing: Data(line.utf8)),
            let read = counts["recordsRead"], read == expected["records_total"]
        else { throw BenchmarkFailure("our import did not read the expected records: \(output)") }
    }

    /// The generated export for `records`, made once per record count (generation takes minutes at 1M).
    static func generatedExport(records: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-bench-health-export-\(records)")
        let done = folder.appendingPathComponent("expected.json")
        if FileManager.default.fileExists(atPath: done.path),
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("export.zip").path),
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("apple_health_export/export.xml").path)
        {
            return folder
        }
        print("\nGenerating an Apple Health export of \(records) records (untimed, cached in \(folder.path))…")
        try? FileManager.default.removeItem(at: folder)
        let generator = RepositoryFiles.healthExportGenerator
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", generator, "--records", "\(records)", "--out", folder.path, "--zip"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("gen_health_export.py exited with \(process.terminationStatus)")
        }
        // Both tools read the zip, then the unpacked export.xml: the folder stays.
        return folder
    }

    /// healthkit-to-sqlite: `HEALTHKIT_TO_SQLITE`, then `PATH`, then the venv the issue's setup makes.
    private static func healthkitToSQLite() -> String? {
        if let explicit = ProcessInfo.processInfo.environment["HEALTHKIT_TO_SQLITE"],
            FileManager.default.isExecutableFile(atPath: explicit)
        {
            return explicit
        }
        return MeasuredProcess.find("healthkit-to-sqlite", extraFolders: ["/tmp/hk-venv/bin"])
    }
}
