import CloudantCore
import CloudantHealthModule
import CloudantTestSupport
import Foundation

/// The hand-written exports of `Tests/Fixtures/HealthExports/` (see its README).
enum DriftFixture {
    static let root = RepositoryFiles.fixtures("HealthExports")

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

/// Zip and gzip through Python's standard library, so the tests need no other tool.
enum FixtureTool {
    /// Zips `folder`'s contents (paths relative to `folder`) into `zip`.
    static func zip(_ folder: URL, into zip: URL) async throws {
        try await ChildProcess.python(["-c", """
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
    static func gzip(_ file: URL, into gzip: URL) async throws {
        try await ChildProcess.python([
            "-c", "import gzip, shutil, sys\nwith open(sys.argv[1], 'rb') as i, gzip.open(sys.argv[2], 'wb') as o: shutil.copyfileobj(i, o)",
            file.path, gzip.path,
        ])
    }
}
