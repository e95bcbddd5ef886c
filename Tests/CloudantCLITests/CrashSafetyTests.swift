import Foundation
import Testing

/// Kills a writing `cloudant bulk` process with SIGKILL at random moments, many times, and checks that
/// every write it acknowledged (printed after its batch committed) is on disk, and that SQLite's
/// integrity check passes.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    @Test func everyAcknowledgedWriteSurvivesSIGKILL() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Documents without _id: each run mints fresh ids, and the output tells which ones committed.
        let padding = String(repeating: "x", count: 400)
        let lines = (0..<40_000).map { #"{"n":\#($0),"pad":"\#(padding)"}"# }
        let file = folder.appendingPathComponent("docs.jsonl")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)

        var generator = SeededGenerator(seed: 20261121)
        var acknowledged: [(id: String, rev: String)] = []
        let kills = 15
        for _ in 0..<kills {
            let delay = Double.random(in: 0.15...0.9, using: &generator)
            acknowledged += try runAndKill(["bulk", "--db", "crash", "--batch-size", "250", file.path], in: folder, after: delay)
        }
        #expect(acknowledged.count > 0, "no batch committed before any kill; the test proved nothing")
        print("crash safety: \(acknowledged.count) acknowledged writes across \(kills) SIGKILLs")

        // Verify through a fresh process: changes lists every document with its winning revision.
        let changes = try CLIRunner.run(["changes", "--db", "crash"], in: folder)
        #expect(changes.status == 0, "\(changes.stderr)")
        let feed = try #require(try JSONSerialization.jsonObject(with: Data(changes.stdout.utf8)) as? [String: Any])
        var stored: [String: String] = [:]
        for row in feed["results"] as? [[String: Any]] ?? [] {
            if let id = row["id"] as? String, let rev = (row["changes"] as? [[String: String]])?.first?["rev"] {
                stored[id] = rev
            }
        }
        let lost = acknowledged.filter { stored[$0.id] != $0.rev }
        #expect(lost.isEmpty, "\(lost.count) of \(acknowledged.count) acknowledged writes were lost")

        let integrity = try CLIRunner.run(["db", "check", "crash"], in: folder)
        #expect(integrity.status == 0, "\(integrity.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(integrity.stdout.utf8)) as? [String: Any])
        #expect(report["integrity_check"] as? [String] == ["ok"])
    }

    /// Starts `cloudant`, kills it with SIGKILL after `delay` seconds, and returns the (id, rev) pairs of
    /// every complete result line it printed.
    private func runAndKill(_ arguments: [String], in folder: URL, after delay: Double) throws -> [(id: String, rev: String)] {
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let collected = OutputCollector()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        collected.append(output.fileHandleForReading.readDataToEndOfFile())

        var pairs: [(id: String, rev: String)] = []
        let text = String(decoding: collected.data, as: UTF8.self)
        // Only lines ended by a newline were printed completely, after their batch committed.
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            guard let results = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]] else { continue }
            for result in results {
                if let id = result["id"] as? String, let rev = result["rev"] as? String, result["ok"] as? Bool == true {
                    pairs.append((id, rev))
                }
            }
        }
        return pairs
    }
}

/// Collects bytes from a readability handler thread.
final class OutputCollector: @unchecked Sendable {
    // `lock` protects `storage`.
    private let lock = NSLock()
    private var storage = Data()
    func append(_ data: Data) { lock.withLock { storage.append(data) } }
    var data: Data { lock.withLock { storage } }
}

/// A small deterministic generator so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
