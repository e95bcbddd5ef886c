internal import ArgumentParser
internal import CloudantOnly
internal import CloudantSyncNIO
internal import Foundation

/// `cloudant replicate SOURCE TARGET`: CouchDB's replication protocol between local stores and URLs.
struct ReplicateCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Replicate from SOURCE to TARGET; each is a local store name or a database URL.",
        discussion: """
            Credentials go in the URL or in CLOUDANT_SOURCE_AUTH / CLOUDANT_TARGET_AUTH (user:password). \
            A progress line goes to standard error; the final statistics are JSON on standard output. \
            A replication resumes from its checkpoint when run again.

            Examples:
              cloudant replicate phone \\
                https://user:pass@account.cloudantnosqldb.appdomain.cloud/patients
              CLOUDANT_SOURCE_AUTH=admin:secret cloudant replicate \\
                http://127.0.0.1:5984/notes notes --continuous
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Where documents come from: a store name or http(s)://host:port/db.") var source: String
    @Argument(help: "Where they go: a store name (created if missing) or a database URL.") var target: String
    @Flag(help: "Keep replicating new changes until interrupted.") var continuous = false
    @Option(help: "Only documents this Mango selector (JSON) matches.") var selector: String?
    @Option(name: .customLong("doc-ids"), help: "Only these document ids, comma-separated.") var documentIDs: String?
    @Option(name: .customLong("batch-size"), help: "Changes per batch.") var batchSize = 1_000
    @Flag(name: .customLong("create-target"), help: "Create a remote target database when it does not exist.")
    var createTarget = false
    @Flag(help: "Log in with a cookie session (POST /_session) instead of basic authentication.") var session = false
    @Option(
        name: .customLong("http-client"),
        help: "How requests travel: nio (SwiftNIO's AsyncHTTPClient, the faster) or urlsession (libcurl, which honours http_proxy and https_proxy).")
    var httpClient: HTTPClientChoice = .nio

    func execute() async throws {
        if selector != nil && documentIDs != nil {
            throw CloudantError(.invalidValue, "--selector and --doc-ids are exclusive, as in CouchDB.", context: .init(field: "selector"))
        }
        var filter = ReplicationFilter.none
        if let selector { filter = .selector(try MangoSelector(.object(try readJSONObject(selector)))) }
        if let documentIDs { filter = .documentIDs(documentIDs.split(separator: ",").map(String.init)) }
        let sourcePeer = try peer(source, environment: "CLOUDANT_SOURCE_AUTH", mustExist: true)
        let targetPeer = try peer(target, environment: "CLOUDANT_TARGET_AUTH", mustExist: false)
        if createTarget, let remote = targetPeer as? HTTPPeer { try await remote.createIfMissing() }
        let replicator = Replicator(
            source: sourcePeer, target: targetPeer,
            options: ReplicationOptions(batchSize: batchSize, continuous: continuous, filter: filter))
        let bar = Task { for await step in replicator.progress { ProgressLine.show(step) } }
        let stats: ReplicationStats
        do {
            stats = try await replicator.run()
        } catch {
            ProgressLine.finish()
            throw error
        }
        await bar.value
        ProgressLine.finish()
        Output.print([
            "ok": true, "docs_read": .number(JSONNumber(stats.docsRead)), "docs_written": .number(JSONNumber(stats.docsWritten)),
            "doc_write_failures": .number(JSONNumber(stats.docWriteFailures)),
            "missing_checked": .number(JSONNumber(stats.missingChecked)), "missing_found": .number(JSONNumber(stats.missingFound)),
        ])
    }

    private func peer(_ location: String, environment: String, mustExist: Bool) throws -> any ReplicationPeer {
        if location.hasPrefix("http://") || location.hasPrefix("https://") {
            guard let url = URL(string: location) else {
                throw CloudantError(.invalidValue, "\(location) is not a valid URL.", context: .init(field: "url"))
            }
            return try HTTPPeer(
                url: url, authentication: .environment(environment, session: session), transport: httpClient.transport())
        }
        return LocalPeer(try mustExist ? global.openExisting(location) : global.openOrCreate(location))
    }
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

/// `[#####-----] 1200 / 5000 documents` on standard error, redrawn in place when it is a terminal.
enum ProgressLine {
    static let isTerminal = isatty(FileHandle.standardError.fileDescriptor) == 1

    static func show(_ step: ReplicationProgress) {
        guard isTerminal else { return }
        let done = step.documentsProcessed
        let total = done + (step.pending ?? 0)
        let width = 30
        let filled = total == 0 ? width : min(width, width * done / max(total, 1))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let state = step.state == .idle ? " (waiting for changes)" : ""
        FileHandle.standardError.write(Data("\r[\(bar)] \(done) / \(total) documents\(state)   ".utf8))
    }

    static func finish() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
