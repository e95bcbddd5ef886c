import CloudantTestSupport
import Foundation
import Testing

/// Kills a writing `cloudant bulk` process with SIGKILL at random moments, many times, and checks that
/// every write it acknowledged (printed after its batch committed) is on disk, and that SQLite's
/// integrity check passes.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    @Test func everyAcknowledgedWriteSurvivesSIGKILL() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try paddedDocuments(40_000, padding: "x", count: 400, to: "docs.jsonl", in: folder)
        let kills = 15
        let acknowledged = try await killedRuns(
            ["bulk", "--db", "crash", "--batch-size", "250", file.path], in: folder, times: kills, within: 0.75, seed: 20261121)
        print("crash safety: \(acknowledged.count) acknowledged writes across \(kills) SIGKILLs")

        // Verify through a fresh process: changes lists every document with its winning revision.
        let stored = try await winningRevisions(of: "crash", in: folder)
        let lost = acknowledged.filter { stored[$0.id] != $0.rev }
        #expect(lost.isEmpty, "\(lost.count) of \(acknowledged.count) acknowledged writes were lost")

        let integrity = try await CLIRunner.run(["db", "check", "crash"], in: folder)
        #expect(integrity.status == 0, "\(integrity.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(integrity.stdout.utf8)) as? [String: Any])
        #expect(report["integrity_check"] as? [String] == ["ok"])
    }

    /// A write queued for a remote is queued exactly when it is written. `cloudant bulk --queue-for`
    /// (the store write and the queue entry in one transaction) is killed at random moments; afterwards every
    /// document has exactly one queue entry with its revision, and every queue entry its document.
    @Test func aQueuedWriteSurvivesSIGKILLExactlyWhenItsDocumentDoes() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try paddedDocuments(30_000, padding: "y", count: 300, to: "queued.jsonl", in: folder)
        let remote = "http://127.0.0.1:9/offline"
        let acknowledged = try await killedRuns(
            ["bulk", "--db", "outbox", "--batch-size", "200", "--queue-for", remote, file.path], in: folder, times: 8,
            within: 0.65, seed: 20261126)

        let stored = try await winningRevisions(of: "outbox", in: folder)
        let listed = try await CLIRunner.run(["queue", "list", "--db", "outbox", "--remote", remote], in: folder)
        #expect(listed.status == 0, "\(listed.stderr)")
        var queued: [String: String] = [:]
        for entry in try jsonObject(listed.stdout)["pending"] as? [[String: Any]] ?? [] {
            guard let id = entry["id"] as? String, let rev = entry["rev"] as? String else { continue }
            #expect(queued[id] == nil, "\(id) queued twice")
            queued[id] = rev
        }
        #expect(queued == stored, "\(stored.count) documents, \(queued.count) queue entries")
        #expect(acknowledged.allSatisfy { queued[$0.id] == $0.rev })
        print("queued-write crash safety: \(stored.count) documents and queue entries, \(acknowledged.count) acknowledged")
    }

    /// Writes `documents` documents without _id (each run mints fresh ids, and the output tells which ones
    /// committed), each padded with `count` times `padding`, as JSON Lines to `name` in `folder`.
    private func paddedDocuments(_ documents: Int, padding: Character, count: Int, to name: String, in folder: URL) throws -> URL {
        let pad = String(repeating: padding, count: count)
        return try CLIRunner.jsonLines((0..<documents).map { #"{"n":\#($0),"pad":"\#(pad)"}"# }, named: name, in: folder)
    }

    /// Runs `cloudant arguments…` `times` times, each killed at a random moment up to `within` seconds after its
    /// first acknowledged batch (drawn from `seed`), and returns every write the runs acknowledged.
    private func killedRuns(_ arguments: [String], in folder: URL, times: Int, within: Double, seed: UInt64) async throws
        -> [(id: String, rev: String)]
    {
        var generator = SplitMix64(seed: seed)
        var acknowledged: [(id: String, rev: String)] = []
        for _ in 0..<times {
            let delay = Double.random(in: 0...within, using: &generator)
            acknowledged += try await runAndKill(arguments, in: folder, after: delay)
        }
        #expect(acknowledged.count > 0, "no batch committed before any kill; the test proved nothing")
        return acknowledged
    }

    /// Each document's winning revision, as a fresh `cloudant changes --db database` lists it.
    private func winningRevisions(of database: String, in folder: URL) async throws -> [String: String] {
        let changes = try await CLIRunner.run(["changes", "--db", database], in: folder)
        #expect(changes.status == 0, "\(changes.stderr)")
        var stored: [String: String] = [:]
        for row in try jsonObject(changes.stdout)["results"] as? [[String: Any]] ?? [] {
            if let id = row["id"] as? String, let rev = (row["changes"] as? [[String: String]])?.first?["rev"] { stored[id] = rev }
        }
        return stored
    }

    /// Starts `cloudant`, kills it with SIGKILL `delay` seconds after it acknowledged its first batch, and returns
    /// the (id, rev) pairs of every complete result line it printed. The kill's moment counts from that first
    /// result, not from the start: a loaded machine can take seconds to start a process, and a kill before any
    /// commit proves nothing.
    private func runAndKill(_ arguments: [String], in folder: URL, after delay: Double) async throws
        -> [(id: String, rev: String)]
    {
        let process = try ChildProcess(
            CLIRunner.executable.path, arguments, workingDirectory: folder, stdout: .pipe, stderr: .null)
        let collected = OutputCollector()
        // Read on a thread of its own, so the child never blocks on a full pipe before the kill.
        let reader = Thread {
            while let chunk = try? process.standardOutput?.read(upToCount: 65_536), !chunk.isEmpty {
                collected.append(chunk)
            }
            collected.finish()
        }
        reader.start()
        try await waitUntil("a first acknowledged batch") { collected.hasCompleteLine || !process.isRunning }
        try await Task.sleep(for: .seconds(delay))
        process.send(SIGKILL)
        await process.exit()
        await onOwnThread { collected.waitUntilFinished() }

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

/// Collects bytes read on another thread, and says when that thread saw the end.
final class OutputCollector: @unchecked Sendable {
    // `condition` protects `storage` and `finished`.
    private let condition = NSCondition()
    private var storage = Data()
    private var finished = false

    func append(_ data: Data) { condition.withLock { storage.append(data) } }

    /// Whether a whole line (a committed batch's results) has arrived.
    var hasCompleteLine: Bool { condition.withLock { storage.contains(UInt8(ascii: "\n")) } }

    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    func waitUntilFinished() {
        condition.withLock {
            while !finished { condition.wait() }
        }
    }

    var data: Data { condition.withLock { storage } }
}
