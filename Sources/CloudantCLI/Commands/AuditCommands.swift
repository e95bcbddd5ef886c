internal import ArgumentParser
internal import CloudantOnly
internal import CloudantServer
internal import Foundation

/// `cloudant audit`: reads and checks the audit trail `cloudant serve --audit` keeps.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read or verify the audit trail of `cloudant serve --audit`.",
        discussion: """
            The trail is in _audit in --data unless --folder names another. Dates are ISO 8601 \
            (2026-11-26 or 2026-11-26T10:00:00Z).

            Examples:
              cloudant audit --since 2026-11-26 --user zoe --db userdb-7a6f65
              cloudant audit verify
            """,
        subcommands: [AuditListCommand.self, AuditVerifyCommand.self],
        defaultSubcommand: AuditListCommand.self)
}

/// Where the trail is: `--folder`, else `_audit` in the data folder.
struct AuditFolderOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The audit trail's folder (default: _audit in --data).", valueName: "DIR"))
    var folder: String?

    func resolved(_ global: GlobalOptions) -> String {
        folder ?? URL(fileURLWithPath: global.data).appendingPathComponent("_audit").path
    }

    /// The keys of the server whose data folder is --data (its secret, and --encryption-key's key for an
    /// encrypted server), or `nil` when no server has run there: the chain is then checked without them.
    func keys(_ global: GlobalOptions) throws -> AuditKeys? {
        try? AuditKeys.ofServer(dataFolder: global.data, encryptionKey: try global.encryptionKey())
    }
}

/// `cloudant audit [list] --since DATE [--until DATE] [--user NAME] [--db NAME]`.
struct AuditListCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the audit entries that match (the default subcommand).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var location: AuditFolderOption

    @Option(help: ArgumentHelp("Entries at or after this instant (ISO 8601).", valueName: "DATE")) var since: String?
    @Option(help: ArgumentHelp("Entries before this instant (ISO 8601).", valueName: "DATE")) var until: String?
    @Option(help: ArgumentHelp("Entries of this user.", valueName: "NAME")) var user: String?
    @Option(name: .customLong("db"), help: ArgumentHelp("Entries about this database.", valueName: "NAME"))
    var database: String?

    func execute() async throws {
        let entries = try AuditTrail.entries(
            in: location.resolved(global), since: try since.map { try HealthCLIDates.parse($0, field: "since") },
            until: try until.map { try HealthCLIDates.parse($0, field: "until") }, user: user, database: database,
            keys: try location.keys(global))
        Output.print(["entries": .array(entries.map(\.json)), "count": .number(JSONNumber(entries.count))])
    }
}

/// `cloudant audit verify`: checks the hash chain; a broken one prints where and exits 1.
struct AuditVerifyCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the trail's hash chain and signed head: exit 0 when intact, 1 naming the first break otherwise.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var location: AuditFolderOption

    func execute() async throws {
        let report = try AuditTrail.verify(folder: location.resolved(global), keys: try location.keys(global))
        Output.print(report.json)
        if !report.isIntact { throw ExitCode(1) }
    }
}
