import Crypto
@testable import CipherVFS
import CloudantTestSupport
import Foundation
import GRDB
import Testing

@Suite struct CrashRecoveryTests {
    // No time limit: the writer stops by itself after 20,000 transactions, and a loaded machine may need
    // minutes to reach the kill.
    @Test func writerKilledWithSIGKILLLosesNoCommittedTransaction() async throws {
        let directory = try TemporaryFolder("cipher-vfs-tests")
        let path = directory.file("store.sqlite").path
        let key = SymmetricKey.random()
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }

        // `cipher-crash-writer` sits next to the test binary (the test target depends on it).
        let process = try ChildProcess(BuiltProducts.executable("cipher-crash-writer").path, [path, hex], stderr: .null)
        // Read "committed N" lines (on a thread of its own) until the writer is past several auto-checkpoints
        // (~9 MB of rows), then kill it.
        let (text, killed) = await onOwnThread { () -> (String, Bool) in
            var text = ""
            var killed = false
            while let chunk = try? process.standardOutput?.read(upToCount: 65_536), !chunk.isEmpty {
                text += String(decoding: chunk, as: UTF8.self)
                if !killed, let last = Self.lastCommitted(text), last >= 1_500 {
                    process.send(SIGKILL)
                    killed = true
                }
            }
            return (text, killed)
        }
        let termination = await process.exit()
        #expect(killed)
        #expect(termination.signal == SIGKILL)
        let lastCommitted = try #require(Self.lastCommitted(text))
        #expect(fileSize(path + "-wal") > 0, "recovery has a log to replay")
        #expect(try !Fixture.fileContainsMarker(path + "-wal"))
        #expect(try !Fixture.fileContainsMarker(path))

        #expect(try CipherVFS.check(key, databaseAt: path) == .matches)
        try CipherVFS.register(key, forDatabaseAt: path)
        let pool = try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration())
        let (transactions, rows, maxTransaction) = try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(DISTINCT txn), count(*), max(txn) FROM rows")
            return (row?[0] as Int? ?? 0, row?[1] as Int? ?? 0, row?[2] as Int? ?? -1)
        }
        #expect(maxTransaction >= lastCommitted, "every acknowledged commit survived")
        #expect(transactions == maxTransaction + 1 && rows == transactions * 10, "no partial transaction")
        #expect(try Fixture.integrityCheck(pool) == "ok")
        try pool.close()
        CipherVFS.unregister(path: path)
    }

    /// The number in the last complete "committed N" line; a line still being written is not trusted.
    private static func lastCommitted(_ text: String) -> Int? {
        let lines = text.split(separator: "\n")
        let complete = text.hasSuffix("\n") ? lines[...] : lines.dropLast()
        return complete.last.flatMap { Int($0.dropFirst("committed ".count)) }
    }
}
