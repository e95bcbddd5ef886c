import CloudantTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cloudant serve` ends within its grace period when SIGTERM arrives in the middle of a request that would
/// otherwise run for hours: the request is cancelled, not waited for.
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

    @Test func sigtermDuringARegexThatWouldRunForHoursEndsTheServerWithinItsGracePeriod() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // No step limit to speak of: `^(a+)+$` on 60 a's and a `!` backtracks for far longer than this test lasts.
        let server = try await ServeProcess.start(
            [
                "--data", folder.path, "serve", "--port", "0", "--admin", "admin:s3cret", "--shutdown-grace-period", "1",
                "--regex-step-limit", "9000000000000000000",
            ], in: folder)
        let curl = { (arguments: [String]) async throws -> String in
            String(decoding: try await ChildProcess.run("/usr/bin/curl", ["-s", "-S", "-u", "admin:s3cret"] + arguments).stdout, as: UTF8.self)
        }
        #expect(try await curl(["-X", "PUT", server.url + "/db"]).contains("\"ok\":true"))
        let value = String(repeating: "a", count: 60) + "!"
        #expect(try await curl(["-X", "PUT", "-H", "Content-Type: application/json", "-d", #"{"note":"\#(value)"}"#, server.url + "/db/d"]).contains("\"ok\":true"))
        let query = try ChildProcess(
            "/usr/bin/curl",
            [
                "-s", "-u", "admin:s3cret", "-H", "Content-Type: application/json", "-d",
                #"{"selector":{"note":{"$regex":"^(a+)+$"}}}"#, server.url + "/db/_find",
            ], stdout: .null, stderr: .null)
        defer {
            query.send(SIGKILL)
            Thread { _ = query.wait() }.start()  // reaped off the cooperative pool
        }
        // The regex runs once the server has spent a second of CPU since the query went out.
        let process = server.process
        let pid = process.pid
        let before = Self.cpuSeconds(of: pid)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(300)
        while Self.cpuSeconds(of: pid) - before < 1, clock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(Self.cpuSeconds(of: pid) - before >= 1, "the query never ran")
        process.send(SIGTERM)
        // Waited for off the cooperative pool; the request alone would take hours, so a server that does not end
        // within its grace period hangs here until the test run's own deadline ends it.
        let ended = await process.exit()
        #expect(!process.isRunning)
        #expect(ended.status == 0 && ended.signal == nil, "\(ended)")
    }
}
