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

    /// The folder SwiftPM put the test bundle and the `cloudant` executable in.
    static var productsDirectory: URL {
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
        let url = bundle.bundleURL
        return url.pathExtension == "xctest" ? url.deletingLastPathComponent() : url
    }

    static var executable: URL { productsDirectory.appendingPathComponent("cloudant") }

    /// Runs `cloudant arguments…` in `workingDirectory`, feeding `stdin` if given.
    static func run(_ arguments: [String], stdin: String? = nil, in workingDirectory: URL? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
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
    let process: Process
    /// The JSON line `serve` prints once it listens (`url`, `data`, `uuid`, `admin`).
    let ready: [String: Any]
    private let errors: Pipe

    /// Starts `cloudant arguments…` (which must include `serve`) and waits for its first line.
    init(_ arguments: [String], in folder: URL) throws {
        process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let out = Pipe()
        errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
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
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
