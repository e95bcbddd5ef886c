import Foundation

extension CDABenchmarks {
    /// One document the benchmark parses: what it is, where it is on disk (for lxml) and its bytes.
    struct Input {
        var name: String
        var file: URL
        var data: Data

        /// Parse + extracts per timed sample: about 16 MB of XML, and at least 6 documents.
        var iterations: Int { max(6, 16_000_000 / max(1, data.count)) }
    }

    /// The realistic mix: a small C-CDA with every section kind, and Apple Health's `export_cda.xml` from
    /// `gen_health_export.py` with few and with many vital signs.
    static func inputs(in folder: URL) throws -> [Input] {
        let ccd = folder.appendingPathComponent("ccd.xml")
        try Data(continuityOfCareDocument.utf8).write(to: ccd)
        var inputs = [Input(name: "C-CDA, five section kinds", file: ccd, data: try Data(contentsOf: ccd))]
        let generator = RepositoryFiles.healthExportGenerator
        for entries in [10, 1_000] {
            let out = folder.appendingPathComponent("apple-\(entries)")
            let result = try runProcess(
                "/usr/bin/env",
                ["python3", generator, "--records", "50", "--seed", "7", "--no-routes", "--cda-entries", "\(entries)",
                 "--out", out.path], quiet: true)
            guard result.status == 0 else {
                throw BenchmarkError.unexpected("gen_health_export.py exited with \(result.status)")
            }
            let file = out.appendingPathComponent("apple_health_export/export_cda.xml")
            let name = "Apple export_cda.xml, --cda-entries \(entries)"
            inputs.append(Input(name: name, file: file, data: try Data(contentsOf: file)))
        }
        return inputs
    }

    /// Runs a program to completion and returns its exit status and standard output; standard error passes
    /// through unless `quiet`, so a baseline's traceback is seen.
    static func runProcess(
        _ executable: String, _ arguments: [String], quiet: Bool = false
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if quiet { process.standardError = FileHandle.nullDevice }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // Read before waiting: a dump of a large document is more than a pipe buffer holds.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// A C-CDA R2.1 Continuity of Care Document with one entry in each kind of section (the CDA tests' document).
    static let continuityOfCareDocument = (try? String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/CDA/continuity-of-care.xml"),
        encoding: .utf8)) ?? ""
}
