import CloudantTestSupport
import Crypto
import Foundation
import GRDB
import Testing
@testable import CipherVFS

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

enum Fixture {
    static let markerPrefix = "PLAINTEXT-MARKER-"

    /// SQLITE_IOERR_AUTH, the code the VFS returns for a page that does not authenticate.
    static let sqliteIOErrAuth: Int32 = 10 + (28 << 8)

    static func marker(_ index: Int) -> String { markerPrefix + "\(index)-" + String(repeating: "m", count: 40) }

    /// GRDB configuration for an encrypted store: every connection (writer and readers) is prepared.
    static func encryptedConfiguration(extraSQL: String? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            guard let connection = db.sqliteConnection else { throw TestFailure(description: "closed connection") }
            try CipherVFS.prepare(connection: connection)
            if let extraSQL { try db.execute(sql: extraSQL) }
        }
        return configuration
    }

    static func plainConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        return configuration
    }

    /// Creates `docs` and inserts `count` marker rows in transactions of 1,000.
    static func writeMarkers(_ writer: some DatabaseWriter, count: Int = 5_000) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        for batch in stride(from: 0, to: count, by: 1_000) {
            try writer.write { db in
                for index in batch..<min(batch + 1_000, count) {
                    try db.execute(sql: "INSERT INTO docs (id, body) VALUES (?, ?)", arguments: [index, marker(index)])
                }
            }
        }
    }

    static func markerRowCount(_ reader: some DatabaseReader) throws -> Int {
        try reader.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM docs WHERE body LIKE ?", arguments: [markerPrefix + "%"]) ?? -1
        }
    }

    static func integrityCheck(_ reader: some DatabaseReader) throws -> String? {
        try reader.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
    }

    /// Expects `reader` to hold `markers` marker rows and to pass SQLite's integrity check, then closes it.
    static func expectIntact(
        _ reader: some DatabaseReader, markers: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try markerRowCount(reader) == markers, sourceLocation: sourceLocation)
        #expect(try integrityCheck(reader) == "ok", sourceLocation: sourceLocation)
        try reader.close()
    }

    /// Whether the raw bytes of `path` contain the marker prefix; a missing file contains nothing.
    static func fileContainsMarker(_ path: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.range(of: Data(markerPrefix.utf8)) != nil
    }

    /// A new encrypted database of `rows` marker rows, `store.sqlite` in a fresh folder, written and closed; its key
    /// stays registered.
    static func encryptedDatabase(rows: Int = 5_000, key: SymmetricKey = .random()) throws -> EncryptedDatabase {
        let folder = try TemporaryFolder("cipher-vfs-tests")
        let path = folder.file("store.sqlite").path
        try makeEncryptedDatabase(at: path, key: key, rows: rows)
        return EncryptedDatabase(folder: folder, path: path, key: key)
    }

    /// Writes 5,000 marker rows to a new encrypted database at `path` and closes it.
    static func makeEncryptedDatabase(at path: String, key: SymmetricKey, rows: Int = 5_000) throws {
        try CipherVFS.register(key, forDatabaseAt: path)
        let pool = try DatabasePool(path: path, configuration: encryptedConfiguration())
        try writeMarkers(pool, count: rows)
        try pool.close()
    }
}

/// What ``Fixture/encryptedDatabase(rows:key:)`` made: the folder (removed when this goes away), the database's
/// path and its key.
struct EncryptedDatabase {
    let folder: TemporaryFolder
    let path: String
    let key: SymmetricKey
}

extension SymmetricKey {
    /// A new AES-256 key, as `DatabaseKey.random()` makes for a store.
    static func random() -> SymmetricKey { SymmetricKey(size: .bits256) }
}
