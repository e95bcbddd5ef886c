public import CloudantCore
public import Foundation

/// An Apple Health export written by the repository's generator (`Tests/Fixtures/HealthExports/gen_health_export.py`,
/// see its README) with the exact counts a correct importer must reproduce (`expected.json`).
///
/// The generator is deterministic: the same arguments give byte-identical files.
///
/// ```swift
/// let export = try await GeneratedHealthExport.make(records: 300, seed: 3, extra: ["--zip"])
/// defer { export.remove() }
/// #expect(report.recordsRead == export.count("records_total"))
/// ```
public struct GeneratedHealthExport: Sendable {
    /// The generator's output folder: `apple_health_export/`, `expected.json`, and `export.zip` with `--zip`.
    public let root: URL
    /// The generator's `expected.json`.
    public let expected: JSONValue

    /// `apple_health_export/`, as the iPhone writes it.
    public var exportFolder: URL { root.appendingPathComponent("apple_health_export") }
    /// `export.zip` (written with `--zip`).
    public var zipFile: URL { root.appendingPathComponent("export.zip") }
    /// `apple_health_export/export_cda.xml`.
    public var cdaFile: URL { exportFolder.appendingPathComponent("export_cda.xml") }

    /// An integer of `expected.json` (-1 when it is missing).
    public func count(_ key: String) -> Int { expected[key]?.numberValue?.int64Value.map { Int($0) } ?? -1 }

    /// A `{name: count}` object of `expected.json` (empty when it is missing).
    public func counts(_ key: String) -> [String: Int] {
        (expected[key]?.objectValue?.members ?? []).reduce(into: [:]) { result, member in
            if let count = member.value.numberValue?.int64Value { result[member.key] = Int(count) }
        }
    }

    /// Removes the export.
    public func remove() { try? FileManager.default.removeItem(at: root) }

    /// Runs the generator for `records` records from `seed`, with further generator arguments `extra`
    /// (`--zip`, `--route-points 3`, `--quirk dtd-ios16`…), into `folder` (a fresh temporary folder when nil; the
    /// caller removes it).
    /// - Throws: ``ChildProcess/Failed`` when the generator fails; a parse error for a broken `expected.json`.
    public static func make(records: Int, seed: Int = 1, extra: [String] = [], in folder: URL? = nil) async throws
        -> GeneratedHealthExport
    {
        let root = folder ?? temporaryRoot("health-export")
        try await ChildProcess.python(
            [RepositoryFiles.healthExportGenerator.path, "--records", "\(records)", "--seed", "\(seed)", "--out", root.path]
                + extra)
        return try GeneratedHealthExport(root: root)
    }

    /// The generator's export rewritten by `export_variants.py` with `options` (`--truncate 0.6`,
    /// `--second-source`…; see the script), the generator run with `generator` arguments.
    /// - Throws: ``ChildProcess/Failed`` when a script fails; a parse error for a broken `expected.json`.
    public static func variant(_ options: [String], generator: [String]) async throws -> GeneratedHealthExport {
        let root = temporaryRoot("health-variant")
        try await ChildProcess.python(
            [RepositoryFiles.healthExportVariants.path, "--out", root.path] + options + ["--"] + generator)
        return try GeneratedHealthExport(root: root)
    }

    private init(root: URL) throws {
        self.root = root
        expected = try JSONValue(parsing: Data(contentsOf: root.appendingPathComponent("expected.json")))
    }

    private static func temporaryRoot(_ label: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    }
}
