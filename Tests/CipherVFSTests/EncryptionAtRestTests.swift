@testable import CipherVFS
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite struct EncryptionAtRestTests {
    /// Writes through a pool, reads from several readers at once, and returns which files held the marker
    /// before and after a TRUNCATE checkpoint.
    private func markerLocations(encrypted: Bool) async throws -> (before: [String], after: [String], walBytes: Int) {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("store.sqlite").path
        if encrypted { try CipherVFS.register(.random(), forDatabaseAt: path) }
        let pool = try DatabasePool(
            path: path, configuration: encrypted ? Fixture.encryptedConfiguration() : Fixture.plainConfiguration())
        try Fixture.writeMarkers(pool)

        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await pool.read { db in
                        try Int.fetchOne(db, sql: "SELECT count(*) FROM docs WHERE body LIKE ?",
                                         arguments: [Fixture.markerPrefix + "%"]) ?? -1
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == [5_000, 5_000, 5_000, 5_000])

        let files = [path, path + "-wal", path + "-shm"]
        let walBytes = fileSize(path + "-wal")
        let before = try files.filter { try Fixture.fileContainsMarker($0) }
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(fileSize(path) > 5_000 * 50, "the checkpoint moved the rows into the database file")
        let after = try files.filter { try Fixture.fileContainsMarker($0) }
        try pool.close()
        if encrypted { CipherVFS.unregister(path: path) }
        return (before.map { String($0.dropFirst(path.count)) }, after.map { String($0.dropFirst(path.count)) }, walBytes)
    }

    @Test func markerNeverReachesDatabaseWALOrSHMWhenKeyIsRegistered() async throws {
        let found = try await markerLocations(encrypted: true)
        #expect(found.walBytes > 5_000 * 50, "the rows were in the WAL when it was searched")
        #expect(found.before.isEmpty)
        #expect(found.after.isEmpty)
    }

    @Test func markerIsFoundInPlaintextDatabaseProvingTheSearchWorks() async throws {
        let found = try await markerLocations(encrypted: false)
        #expect(found.before.contains("-wal"))
        #expect(found.after.contains(""))
    }
}
