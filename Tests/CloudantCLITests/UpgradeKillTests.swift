import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// An upgrade interrupted by `kill -9` resumes. Each migration runs in its own transaction,
/// so a kill leaves the file at some migration boundary, never half-way, and the next open finishes it.
@Suite("Upgrades killed half-way")
struct UpgradeKillTests {
    static let fixture = RepositoryFiles.fixtures("StoreVersions").appendingPathComponent("2026-11-26-pending-writes.sqlite")
    static let tombstones = 200_000
    static let allMigrations = 19

    @Test func anUpgradeKilledAtAnyMomentResumesAndLosesNothing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("cloudant-data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let grown = folder.appendingPathComponent("grown.sqlite")
        try FileManager.default.copyItem(at: Self.fixture, to: grown)
        try Self.grow(grown)

        // The kills land at migration boundaries seen from outside: each round waits until the upgrade has
        // committed a given number of migrations (or ended) and kills it then, whatever the machine's speed.
        let store = data.appendingPathComponent("old.sqlite")
        let before = try Self.appliedMigrations(grown)
        try #require(before < Self.allMigrations - 1, "the fixture leaves at least two migrations to run")

        var interrupted = 0
        for round in 0..<9 {
            try FileManager.default.copyItem(at: grown, to: store)
            let target = before + 1 + round % (Self.allMigrations - before - 1)
            let process = try ChildProcess(
                CLIRunner.executable.path, ["db", "info", "old"], workingDirectory: folder, stdout: .null, stderr: .null)
            try await waitUntil("\(target) migrations applied", checkingEvery: .milliseconds(1)) {
                !process.isRunning || (Self.appliedMigrationsWhileUpgrading(store) ?? 0) >= target
            }
            process.send(SIGKILL)
            await process.exit()
            // Look at a copy, so the store itself is opened next exactly as the kill left it (WAL unrecovered).
            let inspected = folder.appendingPathComponent("inspected.sqlite")
            try Self.copyWithCompanions(store, to: inspected)
            if try Self.appliedMigrations(inspected) < Self.allMigrations { interrupted += 1 }
            try Self.remove(inspected)
            // The next open finishes the upgrade, whatever the kill left.
            let info = try await CLIRunner.run(["db", "info", "old"], in: folder)
            #expect(info.status == 0, "\(info.stderr)")
            let json = try jsonObject(info.stdout)
            #expect(json["doc_count"] as? Int == 5 && json["doc_del_count"] as? Int == Self.tombstones + 1, "\(json)")
            #expect(try Self.appliedMigrations(store) == Self.allMigrations)
            #expect(try Self.count("SELECT COUNT(*) FROM tombstones", in: store) == Self.tombstones + 1)
            #expect(try await CLIRunner.run(["db", "check", "old"], in: folder).status == 0)
            try Self.remove(store)
        }
        print("upgrade kill: \(interrupted) of 9 kills left the upgrade unfinished")
        // Every kill can come after the upgrade finished (a machine fast enough, or one so busy that the
        // watcher reads late): the rounds then prove nothing, which is recorded, not failed.
        withKnownIssue("no kill landed before the upgrade finished", isIntermittent: true) {
            #expect(interrupted > 0, "no kill landed before the upgrade finished; the test proved nothing")
        }
    }

    /// Adds `tombstones` deleted documents to the old file (copies of its tombstone), so its upgrade has
    /// work to do (the tombstone-times migration dates each).
    static func grow(_ file: URL) throws {
        let queue = try DatabaseQueue(path: file.path)
        try queue.write { db in
            let top = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM documents") ?? 0
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO documents (id, tree, winner_rev, deleted, seq, kind, body, attachments)
                    SELECT 'bulk-' || n.i, g.tree, g.winner_rev, 1, ? + n.i, NULL, NULL, NULL
                    FROM n, documents g WHERE g.id = 'gone'
                    """,
                arguments: [tombstones, top])
            try db.execute(sql: "UPDATE store_info SET value = ? WHERE key = 'update_seq'", arguments: [top + Int64(tombstones)])
        }
        try queue.close()
    }

    static func appliedMigrations(_ file: URL) throws -> Int {
        try count("SELECT COUNT(*) FROM grdb_migrations", in: file)
    }

    /// The migrations another process's upgrade has committed so far, read on a read-only connection of its own;
    /// nil while the file cannot be read.
    static func appliedMigrationsWhileUpgrading(_ file: URL) -> Int? {
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: file.path, configuration: configuration) else { return nil }
        defer { try? queue.close() }
        return try? queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") }
    }

    /// A read on a connection of its own (read-write: after a kill, opening may have to recover the WAL).
    static func count(_ sql: String, in file: URL) throws -> Int {
        let queue = try DatabaseQueue(path: file.path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// Copies a store file with its WAL companions, as they are.
    static func copyWithCompanions(_ file: URL, to copy: URL) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: file.path + suffix) {
            try FileManager.default.copyItem(atPath: file.path + suffix, toPath: copy.path + suffix)
        }
    }

    /// Removes a store file and its WAL companions.
    static func remove(_ file: URL) throws {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: file.path + suffix)
        }
    }
}
