public import Foundation

/// Files the repository holds for its tests, found from this source file's place in the clone: the tests read
/// nothing outside it, wherever it was cloned.
public enum RepositoryFiles {
    /// The package's root folder (this file is `Tests/CloudantTestSupport/Files/RepositoryFiles.swift`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Fixtures/` and the named entry under it (`HealthExports`, `OTFDocuments`…).
    public static func fixtures(_ name: String = "") -> URL {
        root.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
    }

    /// `Conformance/`: the recorded CouchDB and CareKit kits.
    public static let conformance = root.appendingPathComponent("Conformance")

    /// The Apple Health export generator, `Tests/Fixtures/HealthExports/gen_health_export.py`.
    public static let healthExportGenerator = fixtures("HealthExports").appendingPathComponent("gen_health_export.py")

    /// Its post-processor for the drift the generator does not write, `Tests/Fixtures/HealthExports/export_variants.py`.
    public static let healthExportVariants = fixtures("HealthExports").appendingPathComponent("export_variants.py")
}
