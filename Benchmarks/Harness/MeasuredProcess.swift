import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a child process to completion and measures its wall time and peak resident memory.
///
/// Peak memory is the kernel's own account, `ru_maxrss`, so a tool written in any language is measured the same
/// way. It is read through GNU time (`/usr/bin/time`, Debian's `time` package), which forks the tool from a small
/// process of its own: Linux keeps a process's high-water RSS across `exec`, taken from the image it replaces,
/// and a child spawned straight from this process (`posix_spawn` shares our memory until its `exec`) reports at
/// least our own peak, which after generating a large input is hundreds of megabytes. Without GNU time,
/// `wait4`'s figure is used and is then an upper bound. (`Foundation.Process` reaps its children itself and
/// never exposes their rusage, hence `posix_spawn` and `wait4` here.)
struct MeasuredProcess {
    /// How one run went.
    struct Outcome {
        var seconds: Double
        /// Peak resident set size in bytes (file-backed pages it touched, such as SQLite's mmap, included).
        var peakResidentBytes: Int
        var exitStatus: Int32
        /// What the child wrote to standard output.
        var output: String
    }

    var executable: String
    var arguments: [String]
    /// Added to this process's environment.
    var environment: [String: String] = [:]
    /// Where standard output goes instead of being captured (a large output kept as a file).
    var outputPath: String? = nil

    /// Spawns the child with standard output captured in a scratch file and standard error discarded.
    func run() throws -> Outcome {
        let outputFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("cloudant-bench-child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        let environmentStrings = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .map { "\($0.key)=\($0.value)" }
        let peakFile = outputFile.appendingPathExtension("peak")
        defer { try? FileManager.default.removeItem(at: peakFile) }
        let measuredByTime = FileManager.default.isExecutableFile(atPath: Self.gnuTime)
        let command = measuredByTime ? [Self.gnuTime, "-f", "%M", "-o", peakFile.path, executable] + arguments : [executable] + arguments
        let argv = command.map { strdup($0) } + [nil]
        let envp = environmentStrings.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchmarkFailure("could not start \(executable): errno \(spawned)")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkFailure("wait4 failed for \(executable): errno \(errno)") }
        }
        let seconds = (ContinuousClock.now - start).seconds
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import: low 7 bits 0 means a normal exit.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let output = outputPath == nil ? (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" : ""
        // Linux reports ru_maxrss in kilobytes (macOS in bytes); GNU time's `%M` is kilobytes, on its last line
        // (a line about a non-zero exit status may come before it).
        #if os(Linux)
        var peak = Int(usage.ru_maxrss) * 1024
        #else
        var peak = Int(usage.ru_maxrss)
        #endif
        if measuredByTime, let text = try? String(contentsOf: peakFile, encoding: .utf8),
            let kilobytes = text.split(whereSeparator: \.isNewline).last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        {
            peak = kilobytes * 1024
        }
        return Outcome(seconds: seconds, peakResidentBytes: peak, exitStatus: exitStatus, output: output)
    }

    /// GNU time, which measures the tool's peak from a process of its own (see the type's comment).
    static let gnuTime = "/usr/bin/time"

    /// The first executable named `name` on `PATH`, or in `extraFolders`.
    static func find(_ name: String, extraFolders: [String] = []) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        return (path + extraFolders).map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// This executable, for re-running it as a child.
    static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A benchmark that could not run as set up (a tool failed, an export was not generated).
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
