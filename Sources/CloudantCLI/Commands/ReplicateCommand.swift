internal import ArgumentParser
internal import CloudantOnly
internal import CloudantSyncNIO
internal import Foundation
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// `cloudant replicate SOURCE TARGET`: CouchDB's replication protocol between local stores and URLs.
struct ReplicateCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Replicate from SOURCE to TARGET; each is a local store name or a database URL.",
        discussion: """
            Credentials go in the URL or in CLOUDANT_SOURCE_AUTH / CLOUDANT_TARGET_AUTH (user:password). \
            The final statistics are JSON on standard output, with "failures": [{id, rev, error, reason}] for \
            each revision that could not be written (read and written once more first); the checkpoint stays \
            before the first of them, so running the replication again tries them again. A progress line and a \
            log line per failure and per change of state go to standard error. A replication resumes from its \
            checkpoint when run again.

            --continuous keeps replicating until SIGINT or SIGTERM; while a peer cannot be reached it waits \
            (30 s, doubling up to 5 minutes) and starts again from its checkpoint, for as long as it takes. \
            SIGINT or SIGTERM stops any replication at a batch boundary: the checkpoint is written and the \
            statistics printed ("interrupted": true); a second signal stops it at once (status 8, no statistics).

            Exit status: 0 done (or a continuous replication stopped by a signal), 7 done but some revisions \
            were not written (listed in "failures"), 8 a one-shot replication stopped by a signal before it \
            finished (run it again to resume), and the statuses of `cloudant --help` for errors.

            Examples:
              cloudant replicate phone \\
                https://user:pass@account.cloudantnosqldb.appdomain.cloud/patients
              CLOUDANT_SOURCE_AUTH=admin:secret cloudant replicate \\
                http://127.0.0.1:5984/notes notes --continuous --progress
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Where documents come from: a store name or http(s)://host:port/db.") var source: String
    @Argument(help: "Where they go: a store name (created if missing) or a database URL.") var target: String
    @Flag(help: "Keep replicating new changes until interrupted.") var continuous = false
    @Option(help: "Only documents this Mango selector (JSON) matches.") var selector: String?
    @Option(name: .customLong("doc-ids"), help: "Only these document ids, comma-separated.") var documentIDs: String?
    @Option(help: ArgumentHelp("Only documents this design document's filter function passes (run by the source).", valueName: "DDOC/NAME"))
    var filter: String?
    @Option(
        name: .customLong("query-param"), parsing: .singleValue,
        help: ArgumentHelp("A parameter the filter function reads as req.query (repeatable).", valueName: "NAME=VALUE"))
    var queryParameters: [String] = []
    @Option(name: .customLong("batch-size"), help: "Changes per batch.") var batchSize = 1_000
    @Flag(name: .customLong("create-target"), help: "Create a remote target database when it does not exist.")
    var createTarget = false
    @Flag(help: "Log in with a cookie session (POST /_session) instead of basic authentication.") var session = false
    @Option(
        name: .customLong("http-client"),
        help: "How requests travel: nio (SwiftNIO's AsyncHTTPClient, the faster) or urlsession (libcurl, which honours http_proxy and https_proxy).")
    var httpClient: HTTPClientChoice = .nio
    @Flag(help: "Show the progress line even when standard error is not a terminal (a line each time it changes).")
    var progress = false
    @Flag(help: "Leave the progress line out (log lines are still printed).") var quiet = false

    func validate() throws {
        if progress && quiet { throw ValidationError("--progress and --quiet are exclusive.") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1.") }
    }

    func execute() async throws {
        if [selector != nil, documentIDs != nil, self.filter != nil].filter({ $0 }).count > 1 {
            throw CloudantError(
                .invalidInput, "--selector, --doc-ids and --filter are exclusive, as in CouchDB.", context: .init(field: "selector"))
        }
        var filter = ReplicationFilter.none
        if let selector { filter = .selector(try MangoSelector(.object(try readJSONObject(selector)))) }
        if let documentIDs { filter = .documentIDs(documentIDs.split(separator: ",").map(String.init)) }
        if let name = self.filter {
            var parameters: [String: String] = [:]
            for pair in queryParameters {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                parameters[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            filter = .designFunction(name: name, parameters: parameters)
        }
        let sourcePeer = try peer(source, environment: "CLOUDANT_SOURCE_AUTH", mustExist: true)
        let targetPeer = try peer(target, environment: "CLOUDANT_TARGET_AUTH", mustExist: false)
        if createTarget, let remote = targetPeer as? HTTPPeer { try await remote.createIfMissing() }
        let replicator = Replicator(
            source: sourcePeer, target: targetPeer,
            options: ReplicationOptions(batchSize: batchSize, continuous: continuous, filter: filter))
        let reporter = ReplicationReporter(
            mode: quiet ? .quiet : progress ? .forced : .automatic, name: "\(Self.shown(source)) → \(Self.shown(target))")
        let signals = SignalCount()
        SignalWatch.start { signal in
            if signals.add() == 1 {
                reporter.log("\(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping at the next batch boundary (again to stop at once).")
                replicator.stop()
            } else {
                replicator.cancel()
            }
        }
        let shown = Task {
            var last: ReplicationProgress?
            for await step in replicator.progress {
                reporter.show(step)
                last = step
            }
            return last
        }
        let stats: ReplicationStats
        do {
            stats = try await replicator.run()
        } catch {
            _ = await shown.value
            reporter.finish()
            // A second signal cut it short: the interrupted status, with the error saying where it stopped.
            if (error as? CloudantError)?.code == .cancelled, signals.count > 0 {
                Output.printError(error)
                throw ExitCode(ReplicationExit.interrupted)
            }
            throw error
        }
        let interrupted = await shown.value?.state == .stopped
        reporter.finish()
        var result: JSONObject = [
            "ok": .bool(stats.failures.isEmpty), "docs_read": .number(JSONNumber(stats.docsRead)),
            "docs_written": .number(JSONNumber(stats.docsWritten)),
            "doc_write_failures": .number(JSONNumber(stats.docWriteFailures)),
            "missing_checked": .number(JSONNumber(stats.missingChecked)), "missing_found": .number(JSONNumber(stats.missingFound)),
            "failures": .array(stats.failures.map(Self.json)),
        ]
        if interrupted { result["interrupted"] = true }
        Output.print(.object(result))
        if !stats.failures.isEmpty { throw ExitCode(ReplicationExit.documentsFailed) }
        if interrupted && !continuous { throw ExitCode(ReplicationExit.interrupted) }
    }

    private func peer(_ location: String, environment: String, mustExist: Bool) throws -> any ReplicationPeer {
        if location.hasPrefix("http://") || location.hasPrefix("https://") {
            guard let url = URL(string: location) else {
                throw CloudantError(.invalidInput, "\(location) is not a valid URL.", context: .init(field: "url"))
            }
            return try HTTPPeer(
                url: url, authentication: .environment(environment, session: session), transport: httpClient.transport())
        }
        return LocalPeer(try mustExist ? global.openExisting(location) : global.openOrCreate(location))
    }

    /// A store name, or a URL without its credentials, for log lines.
    static func shown(_ location: String) -> String {
        guard location.hasPrefix("http"), var components = URLComponents(string: location) else { return location }
        components.user = nil
        components.password = nil
        return components.string ?? location
    }

    /// One failure as the result JSON lists it.
    static func json(_ failure: WriteFailure) -> JSONValue {
        [
            "id": failure.id.map(JSONValue.string) ?? .null, "rev": failure.rev.map(JSONValue.string) ?? .null,
            "error": .string(failure.error), "reason": .string(failure.reason),
        ]
    }
}

/// The exit statuses of `cloudant replicate` beyond the error categories' (``CloudantCore/ErrorCategory/exitStatus``).
enum ReplicationExit {
    /// The replication finished, but some revisions could not be written (the result's `failures`).
    static let documentsFailed: Int32 = 7
    /// A one-shot replication was stopped by SIGINT or SIGTERM before it finished, or any replication by a second
    /// signal; run it again to resume.
    static let interrupted: Int32 = 8
}

/// How many stop signals arrived.
final class SignalCount: Sendable {
    private let received = Mutex(0)

    /// Counts one more; returns how many so far.
    func add() -> Int { received.withLock { $0 += 1; return $0 } }

    /// How many so far.
    var count: Int { received.withLock { $0 } }
}

/// The `--http-client` choices.
enum HTTPClientChoice: String, ExpressibleByArgument, CaseIterable {
    case nio, urlsession

    func transport() -> any HTTPTransport {
        switch self {
        case .nio: AsyncHTTPClientTransport()
        case .urlsession: URLSessionTransport()
        }
    }
}
