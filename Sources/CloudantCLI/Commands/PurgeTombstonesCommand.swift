internal import ArgumentParser
internal import CloudantOnly

extension DatabaseCommand {
    /// `cloudant db purge-tombstones --db NAME --older-than-days N [--ignore-checkpoints]`.
    struct PurgeTombstones: CloudantCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge-tombstones",
            abstract: "Purge the tombstones of documents deleted more than N days ago.",
            discussion: """
                A tombstone stays while a replication checkpoint kept in the store (a _local document with a \
                source_last_seq) has not read past it, so no replica misses the deletion; \
                --ignore-checkpoints purges regardless. Prints {"db","purged":[ids]}.

                Example: cloudant db purge-tombstones --db notes --older-than-days 30
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(help: "The retention window in days (0 purges every tombstone replications have read).")
        var olderThanDays: Double
        @Flag(help: "Purge tombstones that replication checkpoints have not read yet, too.") var ignoreCheckpoints = false

        func validate() throws {
            guard olderThanDays >= 0, olderThanDays.isFinite else { throw ValidationError("--older-than-days must be 0 or more.") }
        }

        func execute() async throws {
            let store = try global.openExisting(database.db)
            let purged = try await store.purgeTombstones(
                olderThan: .milliseconds(Int64(olderThanDays * 86_400_000)), respectingCheckpoints: !ignoreCheckpoints)
            Output.print(["db": .string(database.db), "purged": .array(purged.map(JSONValue.string))])
        }
    }
}
