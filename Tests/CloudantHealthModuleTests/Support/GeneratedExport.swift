import ChildProcessSupport
import CloudantCore
import Foundation

/// An Apple Health export written by `/work/shared/tools/gen_health_export.py` (override the path with
/// `GEN_HEALTH_EXPORT`) into a fresh temporary folder, with the generator's `expected.json`.
struct GeneratedExport {
    let root: URL
    let expected: JSONValue

    var exportFolder: URL { root.appendingPathComponent("apple_health_export") }
    var zipFile: URL { root.appendingPathComponent("export.zip") }

    static var generator: String {
        ProcessInfo.processInfo.environment["GEN_HEALTH_EXPORT"] ?? "/work/shared/tools/gen_health_export.py"
    }

    static func make(records: Int, seed: Int = 1, extra: [String] = []) throws -> GeneratedExport {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("health-export-\(UUID().uuidString)")
        let generated = try ChildProcess.run(
            "/usr/bin/env",
            ["python3", generator, "--records", "\(records)", "--seed", "\(seed)", "--out", root.path] + extra)
        guard generated.status == 0 else {
            throw CloudantError(
                .invalidValue,
                "gen_health_export.py exited with \(generated.status): \(String(decoding: generated.stderr, as: UTF8.self))")
        }
        let expected = try JSONValue(parsing: Data(contentsOf: root.appendingPathComponent("expected.json")))
        return GeneratedExport(root: root, expected: expected)
    }
}
