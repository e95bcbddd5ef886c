import Crypto
@testable import CipherVFS
import CloudantBase
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite struct RekeyTests {
    @Test func rekeyedDatabaseOpensWithNewKeyOnlyAndKeepsEveryRow() throws {
        let database = try Fixture.encryptedDatabase()
        let (path, oldKey, newKey) = (database.path, database.key, SymmetricKey.random())

        try CipherVFS.rekey(databaseAt: path, from: oldKey, to: newKey)

        #expect(try CipherVFS.check(oldKey, databaseAt: path) == .wrongKey)
        #expect(try CipherVFS.check(newKey, databaseAt: path) == .matches)
        #expect(!FileManager.default.fileExists(atPath: path + ".rekey"))
        #expect(try !Fixture.fileContainsMarker(path))
        try Fixture.expectIntact(try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration()), markers: 5_000)
        CipherVFS.unregister(path: path)
    }

    @Test func rekeyWithWrongOldKeyChangesNothing() throws {
        let database = try Fixture.encryptedDatabase(rows: 100)
        let (path, key) = (database.path, database.key)
        #expect { try CipherVFS.rekey(databaseAt: path, from: .random(), to: .random()) } throws: { error in
            (error as? CloudantError)?.code == .wrongEncryptionKey
        }
        #expect(try CipherVFS.check(key, databaseAt: path) == .matches)
        CipherVFS.unregister(path: path)
    }

    /// A crash after the copy is written but before the rename: a restarted app registers the old key again
    /// and must find the original intact; the next rekey replaces the stale copy.
    @Test func crashBeforeRenameLeavesOriginalIntact() throws {
        let database = try Fixture.encryptedDatabase()
        let (path, oldKey, newKey) = (database.path, database.key, SymmetricKey.random())

        let copy = try CipherVFS.writeRekeyedCopy(databaseAt: path, from: oldKey, to: newKey)
        #expect(try CipherVFS.check(newKey, databaseAt: copy) == .matches)
        CipherVFS.unregister(path: copy)
        try CipherVFS.register(oldKey, forDatabaseAt: path) // what the restarted app does

        #expect(try CipherVFS.check(oldKey, databaseAt: path) == .matches)
        try Fixture.expectIntact(try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration()), markers: 5_000)

        try CipherVFS.rekey(databaseAt: path, from: oldKey, to: newKey)
        #expect(try CipherVFS.check(newKey, databaseAt: path) == .matches)
        CipherVFS.unregister(path: path)
    }
}
