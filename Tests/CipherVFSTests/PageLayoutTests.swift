import Crypto
@testable import CipherVFS
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite struct PageLayoutTests {
    @Test func newEncryptedDatabaseHasPageSize4096And28ReservedBytes() throws {
        let database = try Fixture.encryptedDatabase(rows: 10)
        let (path, key) = (database.path, database.key)

        var page = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)).prefix(4096))
        #expect(!page.starts(with: CipherVFS.sqliteMagic), "the header is encrypted on disk")
        try page.withUnsafeMutableBytes { try PageCodec.open($0, key: key, kind: PageCodec.Kind.database.rawValue, index: 1) }
        #expect(page.starts(with: CipherVFS.sqliteMagic))
        #expect(page[16] == 0x10 && page[17] == 0x00, "page size 4096")
        #expect(page[20] == 28, "reserved bytes per page")
        #expect(page[18] == 2 && page[19] == 2, "WAL mode")
        CipherVFS.unregister(path: path)
    }

    /// Without `prepare(connection:)` SQLite would keep data in the bytes that hold the nonce and tag; the
    /// VFS must refuse the write rather than corrupt or leak.
    @Test func writeWithoutPrepareIsRefusedAndLeavesNoPlaintext() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("store.sqlite").path
        try CipherVFS.register(.random(), forDatabaseAt: path)
        let queue = try DatabaseQueue(path: path, configuration: Fixture.plainConfiguration())
        let error = #expect(throws: DatabaseError.self) { try Fixture.writeMarkers(queue, count: 10) }
        #expect(error?.resultCode == .SQLITE_IOERR)
        try queue.close()
        #expect(try !Fixture.fileContainsMarker(path))
        #expect(try !Fixture.fileContainsMarker(path + "-journal"))
        CipherVFS.unregister(path: path)
    }

    /// Memory-mapped reads would bypass xRead and hand SQLite ciphertext; the VFS offers no xFetch, so a
    /// large mmap_size must change nothing.
    @Test func mmapSizeIsIgnoredForEncryptedFiles() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("store.sqlite").path
        try CipherVFS.register(.random(), forDatabaseAt: path)
        let configuration = Fixture.encryptedConfiguration(extraSQL: "PRAGMA mmap_size = 268435456")
        let pool = try DatabasePool(path: path, configuration: configuration)
        try Fixture.writeMarkers(pool, count: 2_000)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try pool.close()
        try Fixture.expectIntact(try DatabasePool(path: path, configuration: configuration), markers: 2_000)
        CipherVFS.unregister(path: path)
    }

    @Test func tamperedPageFailsAuthenticationInsteadOfReturningGarbage() throws {
        let database = try Fixture.encryptedDatabase(rows: 2_000)
        let path = database.path
        // Flip one byte in the middle of page 3.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 2 * 4096 + 1000)
        let byte = try handle.read(upToCount: 1) ?? Data([0])
        try handle.seek(toOffset: 2 * 4096 + 1000)
        try handle.write(contentsOf: Data([byte[0] ^ 0x01]))
        try handle.close()

        let error = #expect(throws: DatabaseError.self) {
            let queue = try DatabaseQueue(path: path, configuration: Fixture.encryptedConfiguration())
            _ = try queue.read { db in try String.fetchAll(db, sql: "SELECT body FROM docs") }
        }
        #expect(error?.extendedResultCode.rawValue == Fixture.sqliteIOErrAuth)
        CipherVFS.unregister(path: path)
    }

    @Test func swappedPagesFailAuthentication() throws {
        let database = try Fixture.encryptedDatabase(rows: 2_000)
        let path = database.path
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let page2 = data[4096..<8192]
        data.replaceSubrange(4096..<8192, with: data[8192..<12288])
        data.replaceSubrange(8192..<12288, with: page2)
        try data.write(to: URL(fileURLWithPath: path))

        #expect(throws: DatabaseError.self) {
            let queue = try DatabaseQueue(path: path, configuration: Fixture.encryptedConfiguration())
            _ = try queue.read { db in try String.fetchAll(db, sql: "SELECT body FROM docs") }
        }
        CipherVFS.unregister(path: path)
    }
}
