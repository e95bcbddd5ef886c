internal import ArgumentParser
internal import CloudantOnly

/// `cloudant db create|list|info|stats|expiry|purge-tombstones|check|delete`: manage the stores in the data folder.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Create, list, inspect and delete stores.",
        discussion: """
            Examples:
              cloudant --data ./clinic db create notes
              cloudant db list
            """,
        subcommands: [Create.self, List.self, Info.self, Stats.self, Expiry.self, PurgeTombstones.self, Rekey.self, Check.self, Delete.self])

    struct Create: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a store; prints {\"ok\":true}.",
            discussion: "Example: cloudant db create notes   (exit status 4, conflict, if it exists)")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The store name (CouchDB's database-name rule).") var name: String

        func execute() async throws {
            guard try !global.stores.containsStore(name) else {
                throw CloudantError(
                    .conflict, "The database could not be created, the file already exists.",
                    context: .init(database: name))
            }
            _ = try global.openOrCreate(name)
            Output.print(["ok": true])
        }
    }

    struct List: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stores as a JSON array (like /_all_dbs).",
            discussion: "Example: cloudant --data ./clinic db list")
        @OptionGroup var global: GlobalOptions

        func execute() async throws {
            Output.print(.array(try global.stores.storeNames().map { .string($0) }))
        }
    }

    struct Info: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print CouchDB's database info JSON for a store.", discussion: "Example: cloudant db info notes")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The store name.") var name: String

        func execute() async throws {
            Output.print(try await global.openExisting(name).info().json)
        }
    }

    struct Stats: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what a store's file holds and what compaction would give back.",
            discussion: """
                Prints live and deleted document counts, revision bodies kept (and how many are not the \
                winner), their bytes, attachment bytes, the file and WAL sizes, free bytes and reclaimable \
                bytes (free pages plus bodies of revisions compaction drops). `cloudant compact` reclaims them. \
                `bytes_per_document` is the file's size per live document; `live_body_json_bytes` and \
                `body_compression_ratio` compare the live bodies' JSON with what they take stored (compressed); \
                `structures` lists every table and index of the file, largest first, with its bytes, bytes per \
                live document, payload bytes and entries.

                Example: cloudant db stats --db notes
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption

        func execute() async throws {
            guard case .object(var stats) = try await global.openExisting(database.db).storageStats().json else { return }
            stats["db"] = .string(database.db)
            Output.print(.object(stats))
        }
    }

    struct Check: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run SQLite's integrity check on a store; exits non-zero unless it reports ok.",
            discussion: "Example: cloudant db check notes   (exit status 1 when the store is damaged)")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The store name.") var name: String

        func execute() async throws {
            let problems = try await global.openExisting(name).integrityCheck()
            let ok = problems == ["ok"]
            Output.print(["ok": .bool(ok), "integrity_check": .array(problems.map { .string($0) })])
            if !ok { throw ErrorCategory.internal.exitCode }
        }
    }

    struct Delete: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a store and its files.", discussion: "Example: cloudant db delete notes")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The store name.") var name: String

        func execute() async throws {
            try global.stores.deleteStore(name)
            Output.print(["ok": true])
        }
    }
}
