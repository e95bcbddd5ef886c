import CloudantTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `cloudant` executable as a user would, and captures what it prints.
struct CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `cloudant` executable.
    static var executable: URL { BuiltProducts.cloudant }

    /// Runs `cloudant arguments…` in `workingDirectory`, feeding `stdin` if given, and waits for it on a thread
    /// of its own.
    static func run(_ arguments: [String], stdin: String? = nil, in workingDirectory: URL? = nil) async throws -> Output {
        let output = try await ChildProcess.run(
            executable.path, arguments, input: stdin.map { Data($0.utf8) }, workingDirectory: workingDirectory)
        return Output(
            status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
            stderr: String(decoding: output.stderr, as: UTF8.self))
    }

    /// Writes `lines` as the JSON Lines file `name` in `folder` (what `cloudant bulk` reads) and returns its URL.
    static func jsonLines(_ lines: [String], named name: String = "docs.jsonl", in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// `count` documents `d0`, `d1`… as JSON lines, each with a `pad` of `hexDigits` random hexadecimal digits:
    /// bodies the store's compression cannot shrink much (half a byte of entropy a digit), for tests that need
    /// a file of a known least size.
    static func randomlyPaddedDocuments(_ count: Int, hexDigits: Int) -> [String] {
        var random = SystemRandomNumberGenerator()
        return (0..<count).map { index in
            let padding = String((0..<hexDigits).map { _ in "0123456789abcdef".randomElement(using: &random)! })
            return #"{"_id":"d\#(index)","pad":"\#(padding)"}"#
        }
    }

    /// A fresh empty folder for one test.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension CLIRunner.Output {
    /// Expects the command to have exited with `expected` and printed a JSON error on standard error whose
    /// members include `members` (`error`, `code`, `id`, …); returns the error object for further checks.
    @discardableResult
    func expectError(
        status expected: Int32, _ members: KeyValuePairs<String, String>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        #expect(status == expected, "\(stderr)", sourceLocation: sourceLocation)
        let error = try jsonObject(stderr)
        for (key, value) in members {
            #expect(error[key] as? String == value, "the error's \(key)", sourceLocation: sourceLocation)
        }
        return error
    }
}

/// A `cloudant serve` process started as a user would, stopped with SIGTERM when the test is done.
final class ServeProcess: Sendable {
    let process: ChildProcess
    /// The JSON line `serve` prints once it listens (`url`, `data`, `uuid`, `admin`), as text.
    private let readyLine: String

    /// Where the server's log (its standard error) goes: beside its folder, so a failed or crashed run can be
    /// read afterwards.
    let logURL: URL

    private init(process: ChildProcess, readyLine: String, logURL: URL) {
        self.process = process
        self.readyLine = readyLine
        self.logURL = logURL
    }

    /// What the server logged so far.
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The JSON line `serve` prints once it listens (`url`, `data`, `uuid`, `admin`).
    var ready: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(readyLine.utf8)) as? [String: Any]) ?? [:]
    }

    /// Starts `cloudant arguments…` (which must include `serve`) and returns once it printed its first line: the
    /// server listens then (read on a thread of its own, however long a loaded machine takes).
    static func start(_ arguments: [String], in folder: URL) async throws -> ServeProcess {
        // Its log goes to a file: a pipe nobody reads would fill and stall the server.
        let logURL = folder.deletingLastPathComponent()
            .appendingPathComponent("\(folder.lastPathComponent)-serve-\(UUID().uuidString.prefix(8)).log")
        let process = try ChildProcess(
            CLIRunner.executable.path, arguments, workingDirectory: folder, stdout: .pipe, stderr: .file(logURL))
        let line = await onOwnThread {
            var line = Data()
            while let out = process.standardOutput {
                let byte = out.readData(ofLength: 1)
                if byte.isEmpty || byte == Data("\n".utf8) { break }
                line.append(byte)
            }
            return String(decoding: line, as: UTF8.self)
        }
        return ServeProcess(process: process, readyLine: line, logURL: logURL)
    }

    /// `cloudant serve` on a free port over the stores in `folder`.
    /// - Throws: `URLError(.cannotConnectToHost)` when the server did not say where it listens.
    static func start(folder: URL) async throws -> ServeProcess {
        let server = try await start(["serve", "--port", "0", "--data", folder.path], in: folder)
        guard server.port > 0 else {
            server.kill()
            throw URLError(.cannotConnectToHost)
        }
        return server
    }

    /// The server's base URL, `http://127.0.0.1:PORT`.
    var url: String { ready["url"] as? String ?? "" }

    /// The port it listens on (0 before it said).
    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// Ends the server as a crash would: SIGKILL, no shutdown.
    func kill() {
        process.send(SIGKILL)
        process.wait()  // A crash before the kill is reported once, by `deinit`.
    }

    deinit {
        let process = process
        let logURL = logURL
        // A server the test already ended is reported and its log removed now: a thread started for it could
        // outlive a test run that ends here and leave the log behind.
        if !process.isRunning {
            Self.report(process.wait(), of: process, log: logURL)
            try? FileManager.default.removeItem(at: logURL)
            return
        }
        process.send(SIGTERM)
        // Reaped on a thread of its own: a graceful shutdown on a loaded machine must not hold one of Swift
        // concurrency's few cooperative threads, which every other test needs.
        Thread {
            Self.report(process.wait(), of: process, log: logURL)
            try? FileManager.default.removeItem(at: logURL)
        }.start()
    }

    /// Says on the test run's standard error, with the server's log, when a signal other than the test's
    /// SIGKILL or SIGTERM ended the server: a crash must not pass unseen because the test moved on. (An exit
    /// status is the test's to check: a restart on a port still held exits with its own.)
    private static func report(_ termination: ChildProcess.Termination, of process: ChildProcess, log: URL) {
        guard let signal = termination.signal, signal != SIGKILL, signal != SIGTERM else { return }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        FileHandle.standardError.write(Data(
            "cloudant serve (pid \(process.pid)) ended with status \(termination.status); its log:\n\(text)\n".utf8))
    }
}
