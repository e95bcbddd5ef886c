import CloudantTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cloudant serve` ends within its grace period when SIGTERM arrives in the middle of a request that would
/// otherwise run for many minutes: the request is cancelled, not waited for.
@Suite("serve: SIGTERM during a long request")
struct ServeShutdownTests {
    /// Seconds of CPU the process has used (user and system), from `/proc`.
    private static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func sigtermDuringAFindThatWouldRunForMinutesEndsTheServerWithinItsGracePeriod() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The work of many minutes is many values that each take a good part of the step limit: `^(a+)+$`
        // against 21 a's and a `!` backtracks through some four million steps (a tenth of a second here), in
        // 10,000 documents none of which matches.
        let server = try await ServeProcess.start(
            [
                "--data", folder.path, "serve", "--port", "0", "--admin", "admin:s3cret", "--shutdown-grace-period", "1",
                "--regex-step-limit", "20000000",
            ], in: folder)
        let curl = { (arguments: [String]) async throws -> String in
            String(decoding: try await ChildProcess.run("/usr/bin/curl", ["-s", "-S", "-u", "admin:s3cret"] + arguments).stdout, as: UTF8.self)
        }
        #expect(try await curl(["-X", "PUT", server.url + "/db"]).contains("\"ok\":true"))
        let value = String(repeating: "a", count: 21) + "!"
        let documents = (0..<10_000).map { #"{"_id":"d\#($0)","note":"\#(value)"}"# }.joined(separator: ",")
        let bulk = folder.appendingPathComponent("bulk.json")
        try Data(#"{"docs":[\#(documents)]}"#.utf8).write(to: bulk)
        let written = try await curl(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@" + bulk.path, server.url + "/db/_bulk_docs"])
        #expect(written.components(separatedBy: "\"ok\":true").count - 1 == 10_000)
        // What curl printed and how it ended go to files, so a query that never ran says why.
        let queryOutput = folder.appendingPathComponent("query.out")
        let queryErrors = folder.appendingPathComponent("query.err")
        let query = try ChildProcess(
            "/usr/bin/curl",
            [
                "-sS", "-u", "admin:s3cret", "-H", "Content-Type: application/json", "-w", "\\nHTTP %{http_code}\\n", "-d",
                #"{"selector":{"note":{"$regex":"^(a+)+$"}}}"#, server.url + "/db/_find",
            ], stdout: .file(queryOutput), stderr: .file(queryErrors))
        defer {
            query.send(SIGKILL)
            Thread { _ = query.wait() }.start()  // reaped off the cooperative pool
        }
        // The query is well under way once the server has spent two seconds of CPU since it went out: more than
        // one value's worth.
        let process = server.process
        let pid = process.pid
        let before = Self.cpuSeconds(of: pid)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(300)
        while Self.cpuSeconds(of: pid) - before < 2, query.isRunning, clock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(
            Self.cpuSeconds(of: pid) - before >= 2,
            """
            the query ended or never ran; curl \(query.isRunning ? "still waits" : "ended"): \
            \((try? String(contentsOf: queryOutput, encoding: .utf8)) ?? "") \
            \((try? String(contentsOf: queryErrors, encoding: .utf8)) ?? "")
            server log: \(server.log)
            """)
        process.send(SIGTERM)
        // Waited for off the cooperative pool; the request alone would take many minutes, so a server that does not end
        // within its grace period hangs here until the test run's own deadline ends it.
        let ended = await process.exit()
        #expect(!process.isRunning)
        #expect(ended.status == 0 && ended.signal == nil, "\(ended)")
    }
}
