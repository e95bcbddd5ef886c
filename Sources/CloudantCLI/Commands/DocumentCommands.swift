internal import ArgumentParser
internal import CloudantOnly

/// `cloudant put --db NAME [JSON]`: write one document (a new one, or an edit naming its `_rev`).
struct PutCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Write a document from an argument or standard input; prints {\"ok\":true,\"id\",\"rev\"}.",
        discussion: """
            The store is created if it does not exist. Without _id, an id is generated.

            Examples:
              cloudant put --db notes '{"_id":"hello","text":"world"}'
              cloudant put --db notes --rev 1-967a00dff5e02add41819138abb3284d \\
                '{"_id":"hello","text":"again"}'
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "The revision being edited (instead of _rev in the document).") var rev: String?
    @Argument(help: "The document JSON; omit or pass - to read standard input.") var document: String?

    func execute() async throws {
        var object = try readJSONObject(document)
        if let rev { object["_rev"] = .string(rev) }
        let store = try global.openOrCreate(database.db)
        Output.print(try await store.put(object).json)
    }
}

/// `cloudant get --db NAME ID`: read a document.
struct GetCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Print a document as JSON.",
        discussion: "Example: cloudant get --db notes hello --revs --conflicts")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Read this revision instead of the winner.") var rev: String?
    @Flag(help: "Add _conflicts and _deleted_conflicts.") var conflicts = false
    @Flag(help: "Add _revisions (the revision history).") var revs = false
    @Flag(name: .customLong("revs-info"), help: "Add _revs_info.") var revsInfo = false
    @Flag(help: "Inline attachment data as base64.") var attachments = false
    @Argument(help: "The document id.") var id: String

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let options = ReadOptions(
            rev: rev, revs: revs, revsInfo: revsInfo, conflicts: conflicts, deletedConflicts: conflicts,
            attachments: attachments)
        Output.print(.object(try await store.document(id: id, options: options)))
    }
}

/// `cloudant delete --db NAME ID --rev REV`: delete a document (write a tombstone).
struct DeleteCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a document; prints {\"ok\":true,\"id\",\"rev\"}.",
        discussion: """
            Example:
              cloudant delete --db notes hello --rev 1-967a00dff5e02add41819138abb3284d
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "The current revision of the document (required).") var rev: String
    @Argument(help: "The document id.") var id: String

    func execute() async throws {
        let store = try global.openExisting(database.db)
        Output.print(try await store.delete(id: id, rev: rev).json)
    }
}
