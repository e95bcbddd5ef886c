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
            throw CloudantError(.invalidInput, "--style must be main_only or all_docs.", context: .init(field: "style"))
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

/// `cloudant compact --db NAME`: drop bodies of non-leaf revisions, rewrite bodies in the store's current
/// stored form, and shrink the file.
struct CompactCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Drop bodies of old revisions, keeping every revision tree, recompress bodies, and shrink the file.",
        discussion: """
            Prints how many revision bodies were dropped, how many bodies were rewritten compressed (bodies a \
            store wrote before it compressed, or before its kind had a dictionary), and the file size before \
            and after (the file is rebuilt, so it shrinks, when a twentieth of it or more holds no data). The rewrite commits every 1000 \
            rows: a compaction that is stopped keeps what it did and the next one goes on from there.

            Example: cloudant compact --db notes --progress
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Flag(help: "Print {\"bodies_recompressed\": N} after each committed batch of the body rewrite.")
    var progress = false

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let before = try await store.info().fileSize
        let report: (@Sendable (Int) -> Void)? =
            progress ? { @Sendable (count: Int) in Output.print(["bodies_recompressed": .number(JSONNumber(count))]) } : nil
        let summary = try await store.compact(progress: report)
        let after = try await store.info().fileSize
        Output.print([
            "ok": true, "revisions_compacted": .number(JSONNumber(summary.revisionsCompacted)),
            "bodies_recompressed": .number(JSONNumber(summary.bodiesRecompressed)),
            "file_size_before": .number(JSONNumber(before)), "file_size_after": .number(JSONNumber(after)),
        ])
    }
}
