import Crypto
@testable import CipherVFS
import CloudantBase
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite struct KeyCheckTests {
    @Test func reopenWithRightKeyReturnsEveryRowAndPassesIntegrityCheck() throws {
        let database = try Fixture.encryptedDatabase()
        let (path, key) = (database.path, database.key)
        CipherVFS.unregister(path: path)

        #expect(try CipherVFS.check(key, databaseAt: path) == .matches)
        try CipherVFS.register(key, forDatabaseAt: path)
        let pool = try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration())
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == 4096)
        try Fixture.expectIntact(pool, markers: 5_000)
        CipherVFS.unregister(path: path)
    }

    @Test func wrongKeyIsReportedAndOpeningYieldsAnErrorNeverData() throws {
        let database = try Fixture.encryptedDatabase()
        let path = database.path
        let wrongKey = SymmetricKey.random()

        #expect(try CipherVFS.check(wrongKey, databaseAt: path) == .wrongKey)
        #expect { try CipherVFS.verify(wrongKey, databaseAt: path) } throws: { error in
            (error as? CloudantError)?.code == .wrongEncryptionKey
        }
        try CipherVFS.register(wrongKey, forDatabaseAt: path)
        var rows: [String]?
        let error = #expect(throws: DatabaseError.self) {
            let pool = try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration())
            rows = try pool.read { db in try String.fetchAll(db, sql: "SELECT body FROM docs") }
        }
        #expect(rows == nil)
        #expect(error?.resultCode == .SQLITE_IOERR)
        #expect(error?.extendedResultCode.rawValue == Fixture.sqliteIOErrAuth)
        CipherVFS.unregister(path: path)
    }

    @Test func encryptedDatabaseWithoutRegisteredKeyFailsToOpen() throws {
        let database = try Fixture.encryptedDatabase()
        let path = database.path
        CipherVFS.unregister(path: path)

        let error = #expect(throws: DatabaseError.self) {
            let pool = try DatabasePool(path: path, configuration: Fixture.plainConfiguration())
            _ = try Fixture.markerRowCount(pool)
        }
        #expect(error?.resultCode == .SQLITE_NOTADB)
    }

    @Test func plaintextDatabaseIsReportedNotEncrypted() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("plain.sqlite").path
        let pool = try DatabasePool(path: path, configuration: Fixture.plainConfiguration())
        try Fixture.writeMarkers(pool, count: 10)
        try pool.close()

        #expect(try CipherVFS.check(.random(), databaseAt: path) == .notEncrypted)
        #expect { try CipherVFS.verify(.random(), databaseAt: path) } throws: { error in
            (error as? CloudantError)?.code == .storeNotEncrypted
        }
    }

    @Test func missingDatabaseIsReportedEmpty() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        #expect(try CipherVFS.check(.random(), databaseAt: directory.file("new.sqlite").path) == .empty)
    }

    /// Everything after the first page lives in the WAL until a checkpoint: a copy taken then must be
    /// recovered from the WAL through the VFS with the right key, and refused with a wrong one.
    @Test func neverCheckpointedDatabaseIsRecoveredFromItsWALAndRefusedWithWrongKey() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let (path, copy) = (directory.file("store.sqlite").path, directory.file("copy.sqlite").path)
        let key = SymmetricKey.random()
        try copyNeverCheckpointedDatabase(from: path, to: copy, key: key)
        #expect(fileSize(copy + "-wal") > 200 * 50)

        #expect(try CipherVFS.check(key, databaseAt: copy) == .matches)
        try CipherVFS.register(.random(), forDatabaseAt: copy)
        let error = #expect(throws: DatabaseError.self) {
            let wrong = try DatabaseQueue(path: copy, configuration: Fixture.encryptedConfiguration())
            _ = try Fixture.markerRowCount(wrong)
        }
        #expect(error?.extendedResultCode.rawValue == Fixture.sqliteIOErrAuth)
        try CipherVFS.register(key, forDatabaseAt: copy)
        try Fixture.expectIntact(try DatabasePool(path: copy, configuration: Fixture.encryptedConfiguration()), markers: 200)
        CipherVFS.unregister(path: copy)
    }

    /// With an empty database file, `check` judges the key by the first WAL frame. (SQLite itself deletes a
    /// WAL whose database file is empty when it opens it, so such a file holds nothing SQLite would read;
    /// `check` still answers so that a caller never registers a wrong key.)
    @Test func emptyDatabaseFileIsCheckedByItsFirstWALFrame() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let (path, copy) = (directory.file("store.sqlite").path, directory.file("copy.sqlite").path)
        let key = SymmetricKey.random()
        try copyNeverCheckpointedDatabase(from: path, to: copy, key: key)
        #expect(truncate(copy, 0) == 0)
        #expect(try CipherVFS.check(key, databaseAt: copy) == .matches)
        #expect(try CipherVFS.check(.random(), databaseAt: copy) == .wrongKey)
    }

    private func copyNeverCheckpointedDatabase(from path: String, to copy: String, key: SymmetricKey) throws {
        try CipherVFS.register(key, forDatabaseAt: path)
        let pool = try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration())
        try Fixture.writeMarkers(pool, count: 200)
        // Copy while the pool is open, so no closing checkpoint empties the WAL first.
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        try pool.close()
        CipherVFS.unregister(path: path)
    }
}
