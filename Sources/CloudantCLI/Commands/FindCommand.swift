internal import ArgumentParser
internal import CloudantOnly

/// `cloudant find --db NAME '<selector>'`: a Cloudant Query, printed as CouchDB's `_find` JSON.
struct FindCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Run a Cloudant Query (Mango) selector; prints CouchDB's _find JSON.",
        discussion: """
            Sorting works with or without an index; `cloudant explain` shows which index a query uses.

            Example:
              cloudant find --db demo '{"age":{"$gt":20}}' \\
                --sort age:desc --limit 10 --fields name,age
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: "Sort fields, comma-separated; append :desc for descending, e.g. age:desc (one direction for all).")
    var sort: String?
    @Option(help: "At most this many documents.") var limit = 25
    @Option(help: "Skip this many matching documents.") var skip = 0
    @Option(help: "Return only these fields, comma-separated.") var fields: String?
    @Option(help: "Continue from the bookmark of a previous page.") var bookmark: String?
    @Flag(name: .customLong("execution-stats"), help: "Add execution statistics.") var executionStats = false
    @Option(name: .customLong("use-index"), help: "Use this index: DDOC or DDOC/NAME.") var useIndex: String?
    @Argument(help: "The selector JSON (or - for standard input).") var selector: String

    func execute() async throws {
        var body: JSONObject = ["selector": .object(try readJSONObject(selector))]
        body["limit"] = .number(JSONNumber(limit))
        body["skip"] = .number(JSONNumber(skip))
        if let sort { body["sort"] = sortJSON(sort) }
        if let fields { body["fields"] = .array(fields.split(separator: ",").map { .string(String($0)) }) }
        if let bookmark { body["bookmark"] = .string(bookmark) }
        if executionStats { body["execution_stats"] = true }
        if let useIndex {
            let parts = useIndex.hasPrefix("_design/") ? [useIndex] : useIndex.split(separator: "/").map(String.init)
            body["use_index"] = .array(parts.map { .string($0) })
        }
        let request = try FindRequest(.object(body))
        Output.print(try await global.openExisting(database.db).find(request).json)
    }
}
