import CloudantTestSupport
import Foundation
import Testing

/// `cloudant audit` and `cloudant audit verify` over the trail a `cloudant serve --audit` wrote.
@Suite("audit: listing and verifying the trail from the command line")
struct AuditCommandTests {
    @Test func theTrailOfAServedFolderListsByUserAndDatabaseAndVerifyCatchesAnEditedLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-cli-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let server = try await ServeProcess.start(["--data", data, "serve", "--port", "0", "--admin", "admin:s3cret", "--audit"], in: folder)
        for (method, path) in [("PUT", "/ward"), ("PUT", "/ward/obs-1"), ("GET", "/ward/obs-1"), ("PUT", "/other")] {
            var arguments = ["-s", "-u", "admin:s3cret", "-X", method, "-H", "Content-Type: application/json"]
            if path == "/ward/obs-1", method == "PUT" { arguments += ["-d", #"{"bpm":70}"#] }
            #expect(try await ChildProcess.run("/usr/bin/curl", arguments + [server.url + path]).status == 0)
        }
        server.process.send(SIGTERM)
        await server.process.exit()

        let listed = try await CLIRunner.run(["--data", data, "audit", "--since", "2000-01-01", "--user", "admin", "--db", "ward"], in: folder)
        #expect(listed.status == 0)
        let json = try jsonObject(listed.stdout)
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.map { $0["action"] as? String } == ["write", "write", "read"])
        #expect(entries.allSatisfy { $0["db"] as? String == "ward" && ($0["hash"] as? String)?.count == 64 })
        #expect(json["count"] as? Int == 3)
        #expect(try await CLIRunner.run(["--data", data, "audit", "list", "--since", "2999-01-01"], in: folder).stdout.contains(#""count":0"#))

        let verified = try await CLIRunner.run(["audit", "verify", "--folder", data + "/_audit"], in: folder)
        #expect(verified.status == 0 && verified.stdout.contains(#""ok":true"#))
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: data + "/_audit").first { $0.hasSuffix(".jsonl") })
        let path = data + "/_audit/" + segment
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: #""status":200"#, with: #""status":201"#).write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try await CLIRunner.run(["--data", data, "audit", "verify"], in: folder)
        #expect(broken.status == 1)
        #expect(broken.stdout.contains(#""ok":false"#) && broken.stdout.contains(#""line":3"#))
        #expect(try await CLIRunner.run(["--data", data, "audit", "--since", "yesterday"], in: folder).status == 2)
        // A mistyped folder is not an intact trail.
        let missing = try await CLIRunner.run(["audit", "verify", "--folder", data + "/_audti"], in: folder)
        #expect(missing.status == 3 && missing.stderr.contains("no audit trail"))
    }

    @Test func aServerKilledWhileRecordingLeavesATrailThatVerifiesOnceItHasRunAgain() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let arguments = ["--data", data, "serve", "--port", "0", "--admin", "admin:s3cret", "--audit"]
        let server = try await ServeProcess.start(arguments, in: folder)
        #expect(try await ChildProcess.run("/usr/bin/curl", ["-s", "-u", "admin:s3cret", "-X", "PUT", server.url + "/ward"]).status == 0)
        // One curl reading over one connection while the server is killed under it.
        let recorded = Self.trailSize(data)
        let reader = try ChildProcess(
            "/usr/bin/curl", ["-s", "-u", "admin:s3cret"] + Array(repeating: server.url + "/ward", count: 5_000),
            stdout: .null, stderr: .null)
        // Killed once the trail is recording the reads (a few dozen lines), however slow the machine.
        try await waitUntil("the trail recording reads") { Self.trailSize(data) > recorded + 8_192 || !reader.isRunning }
        server.kill()
        await reader.exit()

        // Before the trail opens again only an incomplete last line may be wrong.
        let killed = try await CLIRunner.run(["--data", data, "audit", "verify"], in: folder)
        #expect(killed.status == 0 || killed.stdout.contains("incomplete"), "\(killed.stdout)")

        let restarted = try await ServeProcess.start(arguments, in: folder)
        #expect(try await ChildProcess.run("/usr/bin/curl", ["-s", "-u", "admin:s3cret", restarted.url + "/ward"]).status == 0)
        restarted.process.send(SIGTERM)
        await restarted.process.exit()
        let verified = try await CLIRunner.run(["--data", data, "audit", "verify"], in: folder)
        #expect(verified.status == 0, "\(verified.stdout)")
        let report = try jsonObject(verified.stdout)
        #expect(report["ok"] as? Bool == true && report["first_seq"] as? Int == 1)
        #expect(report["last_seq"] as? Int == report["entries"] as? Int)
        #expect((report["entries"] as? Int ?? 0) >= 2)
    }

    /// The bytes of every segment of the trail under `data`.
    private static func trailSize(_ data: String) -> Int {
        let folder = data + "/_audit"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.reduce(0) { total, name in
            total + fileSize(folder + "/" + name)
        }
    }
}
