internal import ArgumentParser
internal import CloudantOnly
internal import Foundation

/// `cloudant queue …`: the offline writes a store holds for remote databases (repositories' queue).
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List, replay or clear the writes a store keeps for remote databases while they are away.",
        subcommands: [QueueListCommand.self, QueueReplayCommand.self, QueueClearCommand.self])
}

/// `cloudant queue list --db NAME [--remote URL]`.
struct QueueListCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the queued writes, oldest first.",
        discussion: """
            Prints {"ok":true,"db":…,"count":N,"pending":[…]}; each entry has its queue position, the remote, \
            the document id and revision, the action (store, update, remove), the entity kind, when it was \
            queued, how many replays tried it and why the last one failed.

            Examples:
              cloudant queue list --db phone
              cloudant queue list --db phone --remote http://127.0.0.1:5984/notes
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Only the writes for this remote database URL.") var remote: String?

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let pending = try await store.pendingWrites(for: try remote.map(QueueRemote.identity))
        Output.print([
            "ok": true, "db": .string(database.db), "count": .number(JSONNumber(pending.count)),
            "pending": .array(pending.map(QueueRemote.json)),
        ])
    }
}

/// `cloudant queue replay --db NAME --remote URL`.
struct QueueReplayCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Send the writes queued for a remote database, oldest first.",
        discussion: """
            Each queued revision is sent with its history (as a replication does), so a write the remote \
            already holds is not applied twice. A write that conflicts with an edit made on the remote is \
            settled with --conflicts: keep-local (the queued write wins, the default), keep-remote, newest (the \
            revision with the longest history, CouchDB's winner) or newest:FIELD (the revision whose FIELD \
            collates highest). Prints what was sent, skipped, refused \
            and resolved; exits with status 6 when the remote cannot be reached (what was sent stays sent). \
            Credentials go in the URL or in CLOUDANT_REMOTE_AUTH (user:password).

            Examples:
              cloudant queue replay --db phone --remote http://127.0.0.1:5984/notes
              CLOUDANT_REMOTE_AUTH=ana:secret cloudant queue replay --db phone \\
                --remote https://host:6984/notes --conflicts newest:updatedDate
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "The remote database URL the writes are for.") var remote: String
    @Option(help: "keep-local, keep-remote, newest or newest:FIELD.") var conflicts = "keep-local"
    @Option(name: .customLong("batch-size"), help: "Writes per request.") var batchSize = 500
    @Flag(help: "Log in with a cookie session (POST /_session) instead of basic authentication.") var session = false

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1.") }
        _ = try Self.policy(conflicts)
    }

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let database = try RemoteDatabase(
            url: try QueueRemote.url(remote), authentication: .environment("CLOUDANT_REMOTE_AUTH", session: session))
        let queue = OfflineWriteQueue(store: store, remote: database, conflictPolicy: try Self.policy(conflicts), batchSize: batchSize)
        let report = try await queue.replay()
        Output.print([
            "ok": true, "sent": .number(JSONNumber(report.sent)), "skipped": .number(JSONNumber(report.skipped)),
            "refused": .array(report.refused.map(QueueRemote.json)),
            "resolved_conflicts": .array(
                report.resolvedConflicts.map {
                    ["id": .string($0.id), "rev": .string($0.rev), "deleted_leaves": .array($0.deletedLeaves.map { .string($0) })]
                }),
            "pending": .number(JSONNumber(try await queue.pending().count)),
        ])
    }

    static func policy(_ text: String) throws -> DocumentConflictPolicy {
        switch text {
        case "keep-local": return .keepLocal
        case "keep-remote": return .keepRemote
        case "newest": return .newest
        case _ where text.hasPrefix("newest:") && text.count > 7: return .newestByField(String(text.dropFirst(7)))
        default: throw ValidationError("--conflicts must be keep-local, keep-remote, newest or newest:FIELD, not \(text).")
        }
    }
}

/// `cloudant queue clear --db NAME [--remote URL]`.
struct QueueClearCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Forget queued writes; the documents stay as they are in the store.",
        discussion: """
            Examples:
              cloudant queue clear --db phone --remote http://127.0.0.1:5984/notes
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Only the writes for this remote database URL (all when omitted).") var remote: String?

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let removed = try await store.clearPendingWrites(for: try remote.map(QueueRemote.identity))
        Output.print(["ok": true, "removed": .number(JSONNumber(removed))])
    }
}

/// How the queue commands name remotes and print entries.
enum QueueRemote {
    static func url(_ text: String) throws -> URL {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), let url = URL(string: text) else {
            throw CloudantError(.invalidInput, "\(text) is not a database URL like http://host:5984/db.", context: .init(field: "remote"))
        }
        return url
    }

    /// The queue's name for a remote: its URL without credentials (as ``RemoteDatabase/identity``).
    static func identity(_ text: String) throws -> String {
        try RemoteDatabase(url: try url(text)).identity
    }

    static func json(_ write: PendingWrite) -> JSONValue {
        var object: JSONObject = [
            "position": .number(JSONNumber(write.id)), "remote": .string(write.remote), "id": .string(write.documentID),
            "rev": .string(write.rev), "action": .string(write.action.rawValue),
            "enqueued_at": .string(ISO8601Timestamp.string(from: write.enqueuedAt, fractionalSeconds: false) ?? ""), "attempts": .number(JSONNumber(write.attempts)),
        ]
        if let kind = write.kind { object["kind"] = .string(kind) }
        if let error = write.lastError { object["last_error"] = .string(error) }
        if let date = write.lastAttemptAt, let text = ISO8601Timestamp.string(from: date, fractionalSeconds: false) {
            object["last_attempt_at"] = .string(text)
        }
        return .object(object)
    }
}
