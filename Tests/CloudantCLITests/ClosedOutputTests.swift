import CloudantTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a command does when the reader of its output went away (`cloudant … | head -1`): a command ends as
/// SIGPIPE ends a Unix tool, quietly with status 141 and its work done; `cloudant serve` keeps serving.
@Suite("cloudant with a closed standard output")
struct ClosedOutputTests {
    @Test func aCommandWhoseReaderWentAwayEndsQuietlyWithStatus141() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = try ChildProcess(
            CLIRunner.executable.path, ["db", "create", "notes"], workingDirectory: folder, stdout: .closedPipe, stderr: .pipe)
        let stderr = await onOwnThread { process.standardError?.readDataToEndOfFile() ?? Data() }
        let ended = await onOwnThread { process.wait() }
        // 141 either way: SIGPIPE itself where the command leaves it at its default, the same status where not.
        #expect(ended.status == 141)
        // No trap, no backtrace: nothing at all on standard error.
        #expect(String(decoding: stderr, as: UTF8.self) == "")
        // The work was done before the answer could not be printed.
        #expect(try await CLIRunner.run(["db", "info", "notes"], in: folder).status == 0)
    }

    @Test func aServerWhoseReaderWentAwayAfterStartingKeepsServing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try LoopbackSocket.unusedPort()
        let process = try ChildProcess(
            CLIRunner.executable.path, ["serve", "--port", String(port), "--data", folder.path], workingDirectory: folder,
            stdout: .closedPipe, stderr: .null)
        defer {
            process.send(SIGTERM)
            process.wait()
        }
        // It listens once it has tried to print where; then it answers, still running.
        try await waitUntil("the server answers") { await ServeHTTP.request("GET", "/_up", port: port)?.status == 200 || !process.isRunning }
        #expect(process.isRunning)
        #expect(await ServeHTTP.request("PUT", "/db", port: port)?.status == 201)
    }
}
