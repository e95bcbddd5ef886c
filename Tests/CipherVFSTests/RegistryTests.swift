import Crypto
@testable import CipherVFS
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite struct RegistryTests {
    @Test func keyRegisteredThroughSymlinkAppliesToTheRealPath() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        try FileManager.default.createDirectory(atPath: directory.file("real").path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link").path, withDestinationPath: directory.file("real").path)
        let key = SymmetricKey.random()
        try CipherVFS.register(key, forDatabaseAt: directory.file("link").path + "/./store.sqlite")
        let realPath = directory.file("real/store.sqlite").path
        let pool = try DatabasePool(path: realPath, configuration: Fixture.encryptedConfiguration())
        try Fixture.writeMarkers(pool, count: 100)
        try pool.close()
        #expect(try CipherVFS.check(key, databaseAt: realPath) == .matches)
        CipherVFS.unregister(path: realPath)
        #expect(KeyRegistry.shared.key(forDatabaseAt: realPath) == nil, "unregistering by another spelling works")
    }

    @Test func unregisteredPathIsPlainSQLite() throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        try CipherVFS.install()
        let path = directory.file("plain.sqlite").path
        let queue = try DatabaseQueue(path: path, configuration: Fixture.plainConfiguration())
        try Fixture.writeMarkers(queue, count: 10)
        try queue.close()
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
        #expect([UInt8](header) == CipherVFS.sqliteMagic)
    }
}
