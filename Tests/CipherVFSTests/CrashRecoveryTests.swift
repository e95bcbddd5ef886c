import Foundation
import GRDB
import Testing
@testable import CipherVFS

@Suite struct CrashRecoveryTests {
    /// `cipher-crash-writer` sits next to the test binary (the test target depends on it).
    private var writerURL: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("cipher-crash-writer")
    }

    @Test(.timeLimit(.minutes(2)))
    func writerKilledWithSIGKILLLosesNoCommittedTransaction() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.sqlite")
        let key = DatabaseKey.random()
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }

        let process = Process()
        process.executableURL = writerURL
        process.arguments = [path, hex]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // Read "committed N" lines until the writer is past several auto-checkpoints (~9 MB of rows), then kill it.
        var text = ""
        var killed = false
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break } // EOF: the writer is gone
            text += String(decoding: chunk, as: UTF8.self)
            if !killed, let last = Self.lastCommitted(text), last >= 1_500 {
                kill(process.processIdentifier, SIGKILL)
                killed = true
            }
        }
        process.waitUntilExit()
        #expect(killed)
        #expect(process.terminationReason == .uncaughtSignal)
        let lastCommitted = try #require(Self.lastCommitted(text))
        #expect(Fixture.fileSize(path + "-wal") > 0, "recovery has a log to replay")
        #expect(try !Fixture.fileContainsMarker(path + "-wal"))
        #expect(try !Fixture.fileContainsMarker(path))

        #expect(try CipherVFS.check(key, databaseAt: path) == .matches)
        try CipherVFS.register(key, forDatabaseAt: path)
        let pool = try DatabasePool(path: path, configuration: Fixture.encryptedConfiguration())
        let (transactions, rows, maxTransaction) = try pool.read { db in
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
