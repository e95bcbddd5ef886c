internal import ArgumentParser
internal import CloudantOnly
internal import Foundation

/// The `cloudant` command: a CouchDB-compatible document store on an embedded SQLite folder.
@main
struct Cloudant: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudant",
        abstract: "An offline-first, CouchDB-compatible document store on embedded SQLite.",
        discussion: """
            Stores live in one folder (--data, default ./cloudant-data), one SQLite file per store; --data \
            goes before or after the command. Every command prints JSON; errors go to standard error as \
            CouchDB's {"error","reason"} with the store's "code".

            Exit status: 0 success, 1 internal error, 2 invalid input, 3 not found, 4 conflict, \
            5 unauthorized, 6 unavailable.

            Examples:
              cloudant --data ./clinic db create notes
              cloudant put --db notes '{"_id":"hello","text":"world"}' --data ./clinic
              cloudant care events --task meds --from 2024-05-01T00:00Z --to 2024-05-02T00:00Z
              cloudant model check --db recipes Recipes.cloudantmodel.json
              cloudant migrate otf --db theraforge_user_42 --dry-run
              cloudant queue replay --db phone --remote http://127.0.0.1:5984/notes
              cloudant audit --since 2026-11-26 --user zoe
            """,
        subcommands: [
            DatabaseCommand.self, PutCommand.self, GetCommand.self, DeleteCommand.self, BulkCommand.self,
            ChangesCommand.self, FindCommand.self, ViewCommand.self, ExplainCommand.self, IndexCommand.self, ReplicateCommand.self, CompactCommand.self, VersionCommand.self,
            ServeCommand.self, CareCommand.self, HealthCommand.self, CDACommand.self, RouteCommand.self, ModelCommand.self,
            MigrateCommand.self, QueueCommand.self, AttachmentCommand.self, AuditCommand.self,
        ]
    )

    /// Read here wherever it is typed, and handed to every subcommand that declares the same group.
    @OptionGroup var global: GlobalOptions

    /// ArgumentParser's `main()`, except that a bad command line exits with the invalid-input status (2), like
    /// every other invalid input, instead of ArgumentParser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            StandardStreams.error(Data((fullMessage(for: error) + "\n").utf8))
            exit(withError: ErrorCategory.invalidInput.exitCode)
        }
    }
}
