internal import ArgumentParser

/// The `cloudant` command: a CouchDB-compatible document store on an embedded SQLite folder.
@main
struct Cloudant: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudant",
        abstract: "An offline-first, CouchDB-compatible document store on embedded SQLite.",
        discussion: """
            Stores live in one folder (--data, default ./cloudant-data), one SQLite file per store.
            Every command prints JSON; errors go to standard error with a non-zero exit status.
            """,
        subcommands: [
            DatabaseCommand.self, PutCommand.self, GetCommand.self, DeleteCommand.self, BulkCommand.self,
            ChangesCommand.self, FindCommand.self, ExplainCommand.self, IndexCommand.self, ReplicateCommand.self, CompactCommand.self, VersionCommand.self,
            ServeCommand.self, CareCommand.self, HealthCommand.self, CDACommand.self, RouteCommand.self,
        ]
    )
}
