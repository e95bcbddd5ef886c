internal import ArgumentParser
internal import CloudantOnly

/// `cloudant explain --db NAME '<selector>'`: how a Cloudant Query would run, as CouchDB's `_explain` JSON.
struct ExplainCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", abstract: "Show how a Cloudant Query selector would run (CouchDB's _explain JSON).",
        discussion: "Example: cloudant explain --db demo '{\"age\":{\"$gt\":20}}' --sort age")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Sort fields, comma-separated; append :desc for descending, e.g. age:desc.") var sort: String?
    @Argument(help: "The selector JSON (or - for standard input).") var selector: String

    func execute() async throws {
        var body: JSONObject = ["selector": .object(try readJSONObject(selector))]
        if let sort { body["sort"] = sortJSON(sort) }
        let request = try FindRequest(.object(body))
        Output.print(try await global.openExisting(database.db).explain(request))
    }
}
