internal import ArgumentParser
internal import CloudantOnly

/// `cloudant changes --db NAME`: the changes feed as CouchDB's `_changes` JSON.
struct ChangesCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Print the changes feed as CouchDB's _changes JSON.",
        discussion: """
            Example:
              cloudant changes --db notes --since 10 --include-docs \\
                --selector '{"type":"memo"}'
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Only changes after this sequence.") var since: Int64 = 0
    @Option(help: "At most this many rows.") var limit: Int?
    @Option(help: "main_only (the winner) or all_docs (every leaf).") var style = "main_only"
    @Flag(name: .customLong("include-docs"), help: "Include each document.") var includeDocs = false
    @Flag(help: "Newest first.") var descending = false
    @Option(help: "Only documents this Mango selector matches (filter=_selector).") var selector: String?

    func execute() async throws {
        guard let style = ChangesOptions.Style(rawValue: style) else {
            throw CloudantError(.invalidValue, "--style must be main_only or all_docs.", context: .init(field: "style"))
        }
        let store = try global.openExisting(database.db)
        var options = ChangesOptions(
            since: since, limit: limit, descending: descending, style: style, includeDocs: includeDocs)
        if let selector {
            let mango = try MangoSelector(.object(try readJSONObject(selector)))
            options.filter = { mango.matches($0) }
        }
        Output.print(try await store.changes(options).json)
    }
}

/// `cloudant compact --db NAME`: drop bodies of non-leaf revisions and shrink the file.
struct CompactCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact", abstract: "Drop bodies of old revisions, keeping every revision tree, and shrink the file.",
        discussion: """
            Prints how many revision bodies were dropped and the file size before and after (the file shrinks \
            when a tenth of it or more is free).

            Example: cloudant compact --db notes
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let before = try await store.info().fileSize
        let dropped = try await store.compact()
        let after = try await store.info().fileSize
        Output.print([
            "ok": true, "revisions_compacted": .number(JSONNumber(dropped)),
            "file_size_before": .number(JSONNumber(before)), "file_size_after": .number(JSONNumber(after)),
        ])
    }
}
