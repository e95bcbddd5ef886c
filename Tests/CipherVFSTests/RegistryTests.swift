import Foundation
import GRDB
import Testing
@testable import CipherVFS

@Suite struct RegistryTests {
    @Test func keyRegisteredThroughSymlinkAppliesToTheRealPath() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.file("real"))
        let key = DatabaseKey.random()
        try CipherVFS.register(key, forDatabaseAt: directory.file("link") + "/./store.sqlite")
        let realPath = directory.file("real/store.sqlite")
        let pool = try DatabasePool(path: realPath, configuration: Fixture.encryptedConfiguration())
        try Fixture.writeMarkers(pool, count: 100)
        try pool.close()
        #expect(try CipherVFS.check(key, databaseAt: realPath) == .matches)
        CipherVFS.unregister(path: realPath)
        #expect(KeyRegistry.shared.key(forDatabaseAt: realPath) == nil, "unregistering by another spelling works")
    }

    @Test func unregisteredPathIsPlainSQLite() throws {
        let directory = try TemporaryDirectory()
        try CipherVFS.install()
        let path = directory.file("plain.sqlite")
        let queue = try DatabaseQueue(path: path, configuration: Fixture.plainConfiguration())
        try Fixture.writeMarkers(queue, count: 10)
        try queue.close()
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
        #expect([UInt8](header) == CipherVFS.sqliteMagic)
    }
}
