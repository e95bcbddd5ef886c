import Crypto
@testable import CipherVFS
import class CloudantTestSupport.TemporaryFolder
import func CloudantTestSupport.fileSize
import Foundation
import GRDB
import Testing

/// The store runs WAL, but VACUUM INTO output and any non-WAL use go through the rollback journal.
@Suite struct RollbackJournalTests {
    private func makeDatabase(at path: String, key: SymmetricKey) throws -> RawConnection {
        try CipherVFS.register(key, forDatabaseAt: path)
        let connection = try RawConnection(path: path)
        try connection.run("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try connection.run("BEGIN")
        for index in 0..<2_000 {
            try connection.run("INSERT INTO docs (body) VALUES (?)", binding: Fixture.marker(index))
        }
        try connection.run("COMMIT")
        return connection
    }

    /// Keeps a transaction open with a tiny cache, so changed pages spill into the database file and the
    /// journal holds the original (marker) pages; then copies database + journal as a crash would leave them.
    @Test func journalPagesAreEncryptedAndHotJournalRollsBackThroughTheVFS() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("store.sqlite").path
        let crashed = directory.file("crashed.sqlite").path
        let key = SymmetricKey.random()
        let connection = try makeDatabase(at: path, key: key)
        try connection.run("PRAGMA cache_size = 2")
        try connection.run("BEGIN")
        try connection.run("UPDATE docs SET body = 'overwritten'")
        #expect(fileSize(path + "-journal") > 100_000)
        #expect(try !Fixture.fileContainsMarker(path + "-journal"))
        #expect(try !Fixture.fileContainsMarker(path))
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-journal", toPath: crashed + "-journal")
        try connection.run("ROLLBACK")

        try CipherVFS.register(key, forDatabaseAt: crashed)
        try Fixture.expectIntact(try DatabaseQueue(path: crashed, configuration: Fixture.encryptedConfiguration()), markers: 2_000)
        CipherVFS.unregister(path: crashed)
        CipherVFS.unregister(path: path)
    }

    /// The journal is opened per transaction, possibly after the key was unregistered: it must still
    /// follow its open database's key, never fall back to plaintext.
    @Test func journalOpenedAfterUnregisterStillUsesTheDatabasesKey() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("store.sqlite").path
        let connection = try makeDatabase(at: path, key: .random())
        CipherVFS.unregister(path: path)
        try connection.run("PRAGMA cache_size = 2")
        try connection.run("BEGIN")
        try connection.run("UPDATE docs SET body = 'overwritten'")
        #expect(fileSize(path + "-journal") > 100_000)
        #expect(try !Fixture.fileContainsMarker(path + "-journal"))
        try connection.run("ROLLBACK")
    }
}
