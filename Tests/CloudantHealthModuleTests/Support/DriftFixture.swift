import ChildProcessSupport
import CloudantCore
import CloudantHealthModule
import Foundation

/// The hand-written exports of `Tests/Fixtures/HealthExports/` (see its README).
enum DriftFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/HealthExports")

    /// The `apple_health_export` folder of `name` (`ios16`).
    static func folder(_ name: String) -> URL { root.appendingPathComponent(name).appendingPathComponent("apple_health_export") }

    /// A copy of the fixture in a fresh temporary folder, for tests that change it or zip it.
    static func copy(_ name: String) throws -> URL {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: folder(name), to: destination.appendingPathComponent("apple_health_export"))
        return destination
    }

    /// Imports the fixture's folder into a fresh store; the caller removes the store.
    static func imported(_ name: String) async throws -> (report: HealthImportReport, store: HealthTestStore) {
        let harness = try HealthTestStore()
        let report = try await AppleHealthImporter(store: harness.store, batchSize: 4).importExport(at: folder(name))
        return (report, harness)
    }
}

/// Runs a helper program to completion (python3 for the fixture tools, zip and gzip through Python's standard
/// library so no other tool is needed).
enum FixtureTool {
    static func python(_ arguments: [String]) throws {
        // posix_spawn through ChildProcessSupport, as every test that starts a process: Foundation's Process
        // crashed CI on Linux once the test process held many descriptors.
        let ran = try ChildProcess.run("/usr/bin/env", ["python3"] + arguments)
        guard ran.status == 0 else {
            throw CloudantError(
                .invalidValue,
                "python3 \(arguments.first ?? "") exited with \(ran.status): \(String(decoding: ran.stderr, as: UTF8.self))")
        }
    }

    /// Zips `folder`'s contents (paths relative to `folder`) into `zip`.
    static func zip(_ folder: URL, into zip: URL) throws {
        try python(["-c", """
            import os, sys, zipfile
            root, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                for base, _, files in os.walk(root):
                    for name in sorted(files):
                        path = os.path.join(base, name)
                        z.write(path, os.path.relpath(path, root))
            """, folder.path, zip.path])
    }

    /// Gzips `file` into `gzip`.
    static func gzip(_ file: URL, into gzip: URL) throws {
        try python(["-c", "import gzip, shutil, sys\nwith open(sys.argv[1], 'rb') as i, gzip.open(sys.argv[2], 'wb') as o: shutil.copyfileobj(i, o)",
                    file.path, gzip.path])
    }

    /// The shared generator, post-processed by `Tests/Fixtures/HealthExports/export_variants.py`.
    static func variant(_ options: [String], generator: [String]) throws -> GeneratedExport {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("health-variant-\(UUID().uuidString)")
        try python([DriftFixture.root.appendingPathComponent("export_variants.py").path, "--out", root.path] + options
            + ["--"] + generator)
        let expected = try JSONValue(parsing: Data(contentsOf: root.appendingPathComponent("expected.json")))
        return GeneratedExport(root: root, expected: expected)
    }
}
