import CloudantTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cloudant health import` into a new store builds the index by kind after the load; a process killed before
/// that leaves a store without it, which must open with it again and resume.
@Suite("A health import killed during its load")
struct HealthImportKillTests {
    /// Documents with a kind, and whether the kind index exists, read straight from the file (GRDB, not the
    /// store, which would build the index when it opens).
    private func kindIndex(in file: URL) throws -> (documents: Int, exists: Bool, entries: Int?) {
        let database = try DatabaseQueue(path: file.path)
        defer { try? database.close() }
        return try database.read { db in
            let documents = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE kind IS NOT NULL AND deleted = 0") ?? 0
            let exists =
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'documents_by_kind')") ?? false
            let entries = exists
                ? try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM documents INDEXED BY documents_by_kind WHERE kind IS NOT NULL AND deleted = 0")
                : nil
            return (documents, exists, entries)
        }
    }

    @Test func anImportKilledBeforeItBuiltTheKindIndexLeavesAStoreThatOpensWithItAndResumes() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = try await GeneratedHealthExport(in: folder, records: 20_000, seed: 21)
        let xml = export.exportFolder.appendingPathComponent("export.xml")
        let store = folder.appendingPathComponent("cloudant-data/health.sqlite")
        let log = URL(fileURLWithPath: store.path + "-wal")

        // A few batches in (the log passes 2 MB at about a tenth of this load), long before the end. The import
        // runs at the lowest priority so the test gets to look while it loads; a machine so busy that the import
        // still ends first gets the run again on a new store: slowness costs time, never the verdict.
        var killedDuringTheLoad = false
        for _ in 0..<5 where !killedDuringTheLoad {
            try? FileManager.default.removeItem(at: store.deletingLastPathComponent())
            let process = try ChildProcess(
                "/usr/bin/nice", ["-n", "19", CLIRunner.executable.path, "health", "import", xml.path, "--batch-size", "500"],
                workingDirectory: folder, stdout: .null, stderr: .null)
            try await waitUntil("the import's log passing 2 MB", checkingEvery: .milliseconds(2)) {
                !process.isRunning || fileSize(log.path) >= 2_000_000
            }
            killedDuringTheLoad = process.isRunning
            process.send(SIGKILL)
            await process.exit()
        }
        try #require(killedDuringTheLoad, "the import ended before the test could kill it, five times")

        let left = try kindIndex(in: store)
        #expect(left.documents > 0, "batches were committed before the kill")
        #expect(!left.exists, "the load into a new store had left the kind index out")

        // The next import opens the store (which builds the index), continues after the checkpoint and completes.
        let rerun = try await CLIRunner.run(["health", "import", xml.path, "--batch-size", "500"], in: folder)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let report = try jsonObject(rerun.stdout)
        #expect(report["samplesByType"] as? [String: Int] == export.counts("records_by_type"))
        let fresh = try await CLIRunner.run(["health", "import", xml.path, "--db", "fresh"], in: folder)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        let whole = try jsonObject(fresh.stdout)
        let written = (report["documentsNew"] as? Int ?? 0) + (report["documentsUnchanged"] as? Int ?? 0)
        #expect(written == whole["documentsNew"] as? Int)

        let after = try kindIndex(in: store)
        #expect(after.exists)
        #expect(after.entries == after.documents, "the rebuilt index holds every document with a kind")
        #expect(after.documents == (try kindIndex(in: folder.appendingPathComponent("cloudant-data/fresh.sqlite"))).documents)
        // Typed reads by kind answer from it as from any store.
        let samples = try await CLIRunner.run(["health", "samples", "--type", "HKQuantityTypeIdentifierHeartRate"], in: folder)
        #expect(samples.status == 0, "\(samples.stderr)")
        #expect(try jsonArray(samples.stdout).count == export.counts("records_by_type")["HKQuantityTypeIdentifierHeartRate"])
    }
}
