internal import ArgumentParser
internal import CloudantOnly

/// `cloudant explain --db NAME '<selector>'`: how a Cloudant Query would run, as CouchDB's `_explain` JSON.
struct ExplainCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", abstract: "Show how a Cloudant Query selector would run (CouchDB's _explain JSON).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Sort fields, comma-separated; append :desc for descending.") var sort: String?
    @Argument(help: "The selector JSON (or - for standard input).") var selector: String

    func execute() async throws {
        var body: JSONObject = ["selector": .object(try readJSONObject(selector))]
        if let sort {
            body["sort"] = .array(
                sort.split(separator: ",").map { field in
                    field.hasSuffix(":desc") ? [String(field.dropLast(5)): "desc"] : .string(String(field))
                })
        }
        let request = try FindRequest(.object(body))
        Output.print(try global.openExisting(database.db).explain(request))
    }
}
