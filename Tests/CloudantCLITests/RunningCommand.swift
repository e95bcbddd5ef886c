import CloudantTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `cloudant` command left running (a continuous replication) whose output the test reads as it comes,
/// signals, and waits for.
final class RunningCommand: @unchecked Sendable {
    /// One output, as read so far. `lock` protects `data` and `ended`.
    private final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var data = Data()
        var ended = false
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    let process: ChildProcess
    private let output = Collected()
    private let errors = Collected()

    /// Starts `executable arguments…` (the built `cloudant` unless told otherwise) with both outputs read
    /// continuously by threads of their own, so the child never blocks on a full pipe.
    init(_ arguments: [String], executable: String = CLIRunner.executable.path, in folder: URL) throws {
        process = try ChildProcess(executable, arguments, workingDirectory: folder, stdout: .pipe, stderr: .pipe)
        for (handle, sink) in [(process.standardOutput, output), (process.standardError, errors)] {
            guard let handle else {
                sink.lock.withLock { sink.ended = true }
                continue
            }
            Thread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    sink.lock.withLock { sink.data.append(chunk) }
                }
                sink.lock.withLock { sink.ended = true }
            }.start()
        }
    }

    /// What the command printed so far.
    var stdout: String { output.text }
    var stderr: String { errors.text }

    /// Waits until standard error holds `text` (polling without holding a thread; the deadline only ends a
    /// broken run).
    /// - Returns: false when the deadline passed or the command ended first.
    @discardableResult
    func waitForError(containing text: String, count: Int = 1, within limit: Duration = .seconds(300)) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if stderr.components(separatedBy: text).count - 1 >= count { return true }
            guard process.isRunning else { return stderr.components(separatedBy: text).count - 1 >= count }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Sends `signal` to the command.
    func send(_ signal: Int32) { process.send(signal) }

    /// Waits (without holding a thread) for the command to end and for its outputs to be read to their end.
    func finish() async throws -> (status: Int32, stdout: String, stderr: String) {
        while process.isRunning || ![output, errors].allSatisfy({ sink in sink.lock.withLock { sink.ended } }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return (process.wait().status, stdout, stderr)
    }
}
