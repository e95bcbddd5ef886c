import CloudantTestSupport
import Foundation
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

    /// Runs `cloudant arguments…` in `workingDirectory`, feeding `stdin` if given.
    static func run(_ arguments: [String], stdin: String? = nil, in workingDirectory: URL? = nil) throws -> Output {
        let output = try ChildProcess.run(
            executable.path, arguments, input: stdin.map { Data($0.utf8) }, workingDirectory: workingDirectory)
        return Output(
            status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
            stderr: String(decoding: output.stderr, as: UTF8.self))
    }

    /// A fresh empty folder for one test.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A `cloudant serve` process started as a user would, stopped with SIGTERM when the test is done.
final class ServeProcess {
    let process: ChildProcess
    /// The JSON line `serve` prints once it listens (`url`, `data`, `uuid`, `admin`).
    let ready: [String: Any]

    /// Starts `cloudant arguments…` (which must include `serve`) and waits for its first line.
    init(_ arguments: [String], in folder: URL) throws {
        // Its log goes to /dev/null: a pipe nobody reads would fill and stall the server.
        process = try ChildProcess(
            CLIRunner.executable.path, arguments, workingDirectory: folder, stdout: .pipe, stderr: .null)
        var line = Data()
        while let out = process.standardOutput {
            let byte = out.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        ready = (try? JSONSerialization.jsonObject(with: line) as? [String: Any]) ?? [:]
    }

    /// `cloudant serve` on a free port over the stores in `folder`.
    /// - Throws: `URLError(.cannotConnectToHost)` when the server did not say where it listens.
    convenience init(folder: URL) throws {
        try self.init(["serve", "--port", "0", "--data", folder.path], in: folder)
        guard port > 0 else {
            kill()
            throw URLError(.cannotConnectToHost)
        }
    }

    /// The server's base URL, `http://127.0.0.1:PORT`.
    var url: String { ready["url"] as? String ?? "" }

    /// The port it listens on (0 before it said).
    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// Ends the server as a crash would: SIGKILL, no shutdown.
    func kill() {
        process.send(SIGKILL)
        process.wait()
    }

    deinit {
        process.send(SIGTERM)
        process.wait()
    }
}
