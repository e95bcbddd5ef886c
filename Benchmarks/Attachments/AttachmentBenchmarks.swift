import CloudantOnly
import Foundation

/// Streamed attachments: one large attachment (1 GB by default) through every path that
/// carries it — the store API in and out, HTTP `PUT` and `GET` against `cloudant serve`'s endpoint, and
/// replication (store to store, push and pull over HTTP) — each in a child process so its peak memory is
/// the kernel's own account (`ru_maxrss`). Baseline in the same run: `cp` copying the same file.
///
/// Target: peak RSS under 100 MB on every path, whatever the attachment's size.
enum AttachmentBenchmarks {
    /// Set in a child's environment to `job` newline `input file` newline `work folder`.
    static let childEnvironmentKey = "CLOUDANT_BENCH_ATTACHMENT"
    static let targetPeakBytes = 100 << 20

    /// The paths measured, in order; each after the first reads what an earlier one wrote (untimed
    /// dependencies are prepared by the earlier job in the same repetition).
    static let jobs: [(name: String, job: String)] = [
        ("store API: putAttachment from the file", "api-put"),
        ("store API: contentBytes to a file", "api-get"),
        ("HTTP PUT /db/doc/att (server + curl)", "http-put"),
        ("HTTP GET /db/doc/att (server + curl)", "http-get"),
        ("replicate store → store", "replicate-local"),
        ("replicate push over HTTP (both ends)", "replicate-push"),
        ("replicate pull over HTTP (both ends)", "replicate-pull"),
    ]

    static func run(megabytes: Int, repetitions: Int) async throws {
        if let job = ProcessInfo.processInfo.environment[childEnvironmentKey] {
            do {
                try await runChild(job)
            } catch {
                print("failed: \(error)")  // Standard output is what the parent keeps of a child.
                exit(1)
            }
            exit(0)
        }
        let input = try inputFile(megabytes: megabytes)
        print("\nStreamed attachments: one \(megabytes) MB attachment along every path, each in a child process (setup untimed)…")
        var times: [[Double]] = Array(repeating: [], count: jobs.count + 1)
        var peaks: [[Double]] = Array(repeating: [], count: jobs.count + 1)
        for _ in 0..<repetitions {
            let work = Scratch.folder("attachments")
            defer { Scratch.remove(work) }
            let copy = try MeasuredProcess(executable: "/bin/cp", arguments: [input.path, work.appendingPathComponent("copy.bin").path]).run()
            times[0].append(copy.seconds)
            peaks[0].append(Double(copy.peakResidentBytes))
            for (index, job) in jobs.enumerated() {
                let outcome = try MeasuredProcess(
                    executable: MeasuredProcess.currentExecutable, arguments: ["attachments"],
                    environment: [childEnvironmentKey: [job.job, input.path, work.path].joined(separator: "\n")]
                ).run()
                guard outcome.exitStatus == 0 else {
                    throw BenchmarkFailure("\(job.name) exited with status \(outcome.exitStatus): \(outcome.output)")
                }
                times[index + 1].append(outcome.seconds)
                peaks[index + 1].append(Double(outcome.peakResidentBytes))
            }
        }
        report(["cp (baseline)"] + jobs.map(\.name), times: times, peaks: peaks, megabytes: megabytes, repetitions: repetitions)
    }

    private static func report(_ names: [String], times: [[Double]], peaks: [[Double]], megabytes: Int, repetitions: Int) {
        print("\nStreamed attachments  (\(megabytes) MB, median of \(repetitions) runs, peak RSS = max over runs)")
        let medians = times.map(Statistics.median)
        for (index, name) in names.enumerated() {
            let peak = peaks[index].max() ?? 0
            var line = "  \(name.padding(toLength: 40, withPad: " ", startingAt: 0))"
            line += String(format: "%8.2f s  %7.1f MB/s  peak RSS %6.1f MB", medians[index], Double(megabytes) / medians[index], peak / 1_048_576)
            if index > 0 {
                line += String(format: "  %5.2f× cp's time", medians[index] / medians[0])
                line += peak < Double(targetPeakBytes) ? "  (peak < 100 MB: met)" : "  (peak < 100 MB: MISSED)"
                MarkdownReport.shared.record(.init(
                    workload: "\(megabytes) MB attachment: \(name) (median of \(repetitions); peak RSS \(String(format: "%.1f", peak / 1_048_576)) MB)",
                    ours: String(format: "%.2f s, %.0f MB/s", medians[index], Double(megabytes) / medians[index]),
                    baseline: String(format: "cp: %.2f s", medians[0]), ratio: String(format: "%.2f×", medians[index] / medians[0]),
                    target: "peak < 100 MB (" + (peak < Double(targetPeakBytes) ? "met" : "missed") + ")"))
            }
            print(line)
        }
    }

    /// Random bytes (incompressible, so nothing shrinks them on the way), made once per size.
    private static func inputFile(megabytes: Int) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-bench-attachment-\(megabytes)mb.bin")
        if let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int, size == megabytes * 1_000_000 {
            return file
        }
        let made = try MeasuredProcess(
            executable: "/usr/bin/head", arguments: ["-c", String(megabytes * 1_000_000), "/dev/urandom"], outputPath: file.path
        ).run()
        guard made.exitStatus == 0 else { throw BenchmarkFailure("could not make \(file.path)") }
        return file
    }

    // MARK: The child's side

    private static func runChild(_ job: String) async throws {
        let parts = job.split(separator: "\n").map(String.init)
        guard parts.count == 3 else { throw BenchmarkFailure("bad \(childEnvironmentKey) value") }
        let (name, input, work) = (parts[0], parts[1], URL(fileURLWithPath: parts[2]))
        let stores = StoreDirectory(path: work.appendingPathComponent("stores").path)
        let serverFolder = StoreDirectory(path: work.appendingPathComponent("server").path)
        switch name {
        case "api-put":
            let store = try DocumentStore.open(name: "a", in: stores)
            _ = try await store.putAttachment("big.bin", documentID: "doc", contentType: "application/octet-stream", content: try FilePieces(path: input))
        case "api-get":
            let store = try DocumentStore.open(name: "a", in: stores)
            try await write(try await store.attachmentContent(documentID: "doc", name: "big.bin").contentBytes(), to: work.appendingPathComponent("out.bin"))
        case "http-put", "http-get":
            let server = try await BenchServer.start(serving: serverFolder)
            if name == "http-put" {
                try curl(["-X", "PUT", "\(server.base)/db"])
                try curl(["-X", "PUT", "-H", "Content-Type: application/octet-stream", "-T", input, "\(server.base)/db/doc/big.bin"])
            } else {
                try curl(["-o", work.appendingPathComponent("http.bin").path, "\(server.base)/db/doc/big.bin"])
            }
            await server.stop()
        case "replicate-local":
            let source = try DocumentStore.open(name: "a", in: stores)
            let target = try DocumentStore.open(name: "b", in: stores)
            _ = try await Replicator(source: LocalPeer(source), target: LocalPeer(target)).run()
        case "replicate-push", "replicate-pull":
            let server = try await BenchServer.start(serving: serverFolder)
            let remote = try HTTPPeer(url: URL(string: server.base + "/pushed")!, authentication: BenchServer.credentials)
            if name == "replicate-push" {
                try await remote.createIfMissing()
                _ = try await Replicator(source: LocalPeer(try DocumentStore.open(name: "a", in: stores)), target: remote).run()
            } else {
                _ = try await Replicator(source: remote, target: LocalPeer(try DocumentStore.open(name: "c", in: stores))).run()
            }
            await server.stop()
        default:
            throw BenchmarkFailure("unknown attachment job \(name)")
        }
    }

    private static func write(_ pieces: AttachmentPieces, to file: URL) async throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = FileHandle(forWritingAtPath: file.path) else {
            throw BenchmarkFailure("cannot write \(file.path)")
        }
        defer { try? handle.close() }
        for try await piece in pieces { try handle.write(contentsOf: piece) }
    }

    /// Runs curl as the bench admin; fails on an HTTP error status.
    private static func curl(_ arguments: [String]) throws {
        let outcome = try MeasuredProcess(executable: "/usr/bin/curl", arguments: ["-sSf", "-u", "bench:bench"] + arguments).run()
        guard outcome.exitStatus == 0 else { throw BenchmarkFailure("curl \(arguments.joined(separator: " ")) failed: \(outcome.output)") }
    }
}
