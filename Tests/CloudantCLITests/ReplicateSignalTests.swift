import CloudantTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `cloudant replicate` stops cleanly on SIGINT and SIGTERM (at a batch boundary, checkpoint written, statistics
/// printed), shows its progress where asked, and a continuous replication outlasts a server that is away.
@Suite("cloudant replicate: signals, progress and outages")
struct ReplicateSignalTests {
    /// A folder with the store `phone` holding `count` documents.
    static func folder(documents count: Int) async throws -> URL {
        let folder = try CLIRunner.temporaryFolder()
        let file = try CLIRunner.jsonLines((0..<count).map { #"{"_id":"d\#($0)","n":\#($0)}"# }, in: folder)
        let loaded = try await CLIRunner.run(["--data", folder.path, "bulk", "--db", "phone", file.path], in: folder)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        return folder
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsAContinuousReplicationWithItsStatisticsAndStatus0(signal: Int32) async throws {
        let folder = try await Self.folder(documents: 50)
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try RunningCommand(
            ["--data", folder.path, "replicate", "phone", "backup", "--continuous", "--progress"], in: folder)
        #expect(try await running.waitForError(containing: "(waiting for changes)"), "\(running.stderr)")
        running.send(signal)
        let (status, stdout, stderr) = try await running.finish()
        #expect(status == 0, "\(stderr)")
        let stats = try jsonObject(stdout)
        #expect(stats["interrupted"] as? Bool == true && stats["docs_written"] as? Int == 50)
        #expect(stderr.contains(signal == SIGINT ? "SIGINT" : "SIGTERM"))
        // Its checkpoint was written: nothing moves again.
        let again = try jsonObject(try await CLIRunner.run(["--data", folder.path, "replicate", "phone", "backup"], in: folder).stdout)
        #expect(again["docs_written"] as? Int == 0 && again["missing_checked"] as? Int == 0)
    }

    @Test func aReplicationStartedInTheBackgroundOfAScriptStillStopsOnSIGINT() async throws {
        let folder = try await Self.folder(documents: 20)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A non-interactive shell starts a background job with SIGINT ignored.
        let command = "'\(CLIRunner.executable.path)' --data '\(folder.path)' replicate phone backup --continuous --progress"
        let script = try RunningCommand(["-c", "\(command) & echo $! >&2; wait $!"], executable: "/bin/sh", in: folder)
        #expect(try await script.waitForError(containing: "(waiting for changes)"), "\(script.stderr)")
        let pid = try #require(script.stderr.split(separator: "\n").first.flatMap { Int32($0) })
        kill(pid, SIGINT)
        let (status, stdout, stderr) = try await script.finish()
        #expect(status == 0, "\(stderr)")
        #expect(try jsonObject(stdout)["interrupted"] as? Bool == true)
    }

    @Test func aOneShotReplicationStoppedBeforeItFinishesExitsWith8AndResumes() async throws {
        let folder = try await Self.folder(documents: 3_000)
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try RunningCommand(
            ["--data", folder.path, "replicate", "phone", "backup", "--batch-size", "1", "--progress"], in: folder)
        #expect(try await running.waitForError(containing: " documents"), "\(running.stderr)")
        running.send(SIGINT)
        let (status, stdout, stderr) = try await running.finish()
        #expect(status == 8, "\(stderr)")
        let first = try jsonObject(stdout)
        #expect(first["interrupted"] as? Bool == true)
        let written = try #require(first["docs_written"] as? Int)
        #expect(written < 3_000)
        let rest = try await CLIRunner.run(["--data", folder.path, "replicate", "phone", "backup"], in: folder)
        #expect(rest.status == 0)
        #expect(try jsonObject(rest.stdout)["docs_written"] as? Int == 3_000 - written)
    }

    @Test func progressLinesGoToAPipeOnlyWithProgressAndNeverWithQuiet() async throws {
        let folder = try await Self.folder(documents: 30)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try await CLIRunner.run(["--data", folder.path, "replicate", "phone", "a", "--batch-size", "10"], in: folder)
        #expect(plain.status == 0 && !plain.stderr.contains("documents"))
        let forced = try await CLIRunner.run(["--data", folder.path, "replicate", "phone", "b", "--batch-size", "10", "--progress"], in: folder)
        #expect(forced.status == 0)
        let lines = forced.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(lines.count >= 3 && lines.last?.contains("30 / 30 documents") == true, "\(forced.stderr)")
        #expect(!forced.stderr.contains("\r"))
        let quiet = try await CLIRunner.run(["--data", folder.path, "replicate", "phone", "c", "--quiet"], in: folder)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let both = try await CLIRunner.run(["--data", folder.path, "replicate", "phone", "d", "--quiet", "--progress"], in: folder)
        #expect(both.status == 2)
    }

    @Test func aContinuousPullOutlastsAServerStoppedForMoreThanAMinute() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("server").path
        var server: ServeProcess? = try await ServeProcess.start(["--data", data, "serve", "--port", "0", "--admin", "admin:s3cret"], in: folder)
        let port = try #require(server?.port)
        let base = "http://admin:s3cret@127.0.0.1:\(port)"
        _ = try await ChildProcess.run("/usr/bin/curl", ["-s", "-X", "PUT", base + "/cloud"])
        _ = try await ChildProcess.run("/usr/bin/curl", ["-s", "-X", "PUT", "-H", "Content-Type: application/json", "-d", #"{"n":1}"#, base + "/cloud/before"])
        let running = try RunningCommand(
            ["--data", folder.appendingPathComponent("local").path, "replicate", base + "/cloud", "local", "--continuous", "--progress"],
            in: folder)
        #expect(try await running.waitForError(containing: "(waiting for changes)"), "\(running.stderr)")

        server?.kill()
        server = nil
        // Away for more than a minute: the replication waits, longer each time, and is still running.
        try await Task.sleep(for: .seconds(65))
        #expect(running.process.isRunning, "\(running.stderr)")
        #expect(running.stderr.contains("starting again from the checkpoint in"), "\(running.stderr)")
        #expect(!running.stderr.contains("admin:s3cret") && !running.stderr.contains("s3cret"))

        // Back on the same port, with a new document: it arrives without any help.
        for _ in 0..<100 where server == nil {
            if let next = try? await ServeProcess.start(["--data", data, "serve", "--port", "\(port)", "--admin", "admin:s3cret"], in: folder), next.port == port {
                server = next
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { server?.kill() }
        try #require(server != nil)
        _ = try await ChildProcess.run("/usr/bin/curl", ["-s", "-X", "PUT", "-H", "Content-Type: application/json", "-d", #"{"n":2}"#, base + "/cloud/after"])
        #expect(try await running.waitForError(containing: "resumed.", within: .seconds(600)), "\(running.stderr)")
        #expect(try await running.waitForError(containing: "] 2 / 2 documents", within: .seconds(300)), "\(running.stderr)")
        running.send(SIGTERM)
        let (status, stdout, stderr) = try await running.finish()
        #expect(status == 0, "\(stderr)")
        #expect(try jsonObject(stdout)["docs_written"] as? Int == 2)
        let after = try await CLIRunner.run(["--data", folder.appendingPathComponent("local").path, "get", "--db", "local", "after"], in: folder)
        #expect(after.status == 0 && after.stdout.contains(#""n":2"#))
    }
}
