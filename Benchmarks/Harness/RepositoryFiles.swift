import Foundation

/// Files of the repository the benchmarks read, found from this source file's place in the clone.
enum RepositoryFiles {
    /// The package's root folder (this file is `Benchmarks/Harness/RepositoryFiles.swift`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Apple Health export generator the tests use too, `Tests/Fixtures/HealthExports/gen_health_export.py`.
    static let healthExportGenerator = root.appendingPathComponent("Tests/Fixtures/HealthExports/gen_health_export.py").path
}
