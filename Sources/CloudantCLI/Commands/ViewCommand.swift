internal import ArgumentParser
internal import CloudantOnly

/// `cloudant view --db NAME DDOC/VIEW`: queries a design document's view, printed as CouchDB's JSON.
struct ViewCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Query a design document's view; prints CouchDB's view JSON.",
        discussion: """
            Keys are JSON, as in CouchDB's URLs: --key '"walk"', --start-key '["2024",5]'. The view's index is \
            brought up to date first (map functions run in the JavaScript engine); while it is, a progress bar \
            goes to standard error when that is a terminal.

            Example:
              cloudant view --db clinic stats/by_day --group-level 1
              cloudant view --db clinic stats/by_day --reduce false --include-docs --limit 10
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Option(help: ArgumentHelp("Rows of this key only (JSON).", valueName: "K")) var key: String?
    @Option(help: ArgumentHelp("Rows of exactly these keys, in this order (a JSON array).", valueName: "KEYS")) var keys: String?
    @Option(name: .customLong("start-key"), help: ArgumentHelp("Rows from this key (JSON).", valueName: "K")) var startKey: String?
    @Option(name: .customLong("end-key"), help: ArgumentHelp("Rows up to this key (JSON).", valueName: "K")) var endKey: String?
    @Option(name: .customLong("group-level"), help: ArgumentHelp("Group reduced rows by this many leading key elements.", valueName: "N"))
    var groupLevel: Int?
    @Flag(help: "Group reduced rows by their whole key.") var group = false
    @Option(help: ArgumentHelp("Whether to reduce (true or false).", valueName: "BOOL")) var reduce: Bool?
    @Flag(name: .customLong("include-docs"), help: "Add each row's document.") var includeDocs = false
    @Flag(help: "Newest key first.") var descending = false
    @Option(help: ArgumentHelp("At most this many rows.", valueName: "N")) var limit: Int?
    @Option(help: ArgumentHelp("Skip this many rows first.", valueName: "N")) var skip: Int?
    @Argument(help: ArgumentHelp("The design document and view, DDOC/VIEW.", valueName: "DDOC/VIEW")) var view: String

    func execute() async throws {
        let parts = view.hasPrefix("_design/") ? Array(view.split(separator: "/").dropFirst()) : view.split(separator: "/")
        guard parts.count == 2 else {
            throw CloudantError(.invalidInput, "Name the view as DDOC/VIEW, e.g. stats/by_day.", context: .init(field: "view"))
        }
        var parameters: [(String, String)] = []
        if let key { parameters.append(("key", key)) }
        if let keys { parameters.append(("keys", keys)) }
        if let startKey { parameters.append(("startkey", startKey)) }
        if let endKey { parameters.append(("endkey", endKey)) }
        if let groupLevel { parameters.append(("group_level", String(groupLevel))) }
        if group { parameters.append(("group", "true")) }
        if let reduce { parameters.append(("reduce", String(reduce))) }
        if includeDocs { parameters.append(("include_docs", "true")) }
        if descending { parameters.append(("descending", "true")) }
        if let limit { parameters.append(("limit", String(limit))) }
        if let skip { parameters.append(("skip", String(skip))) }
        let query = try ViewQuery(parameters: parameters)
        let store = try global.openExisting(database.db)
        let result = try await ViewIndexProgressBar.drawing(store) {
            try await store.queryView(designDocument: String(parts[0]), view: String(parts[1]), query: query)
        }
        Output.print(result.json)
    }
}

/// The view index update a query waits for, drawn on standard error while it runs when that is a terminal:
/// the documents mapped of those changed since the index's sequence (``DocumentStore/activeViewIndexTasks``).
enum ViewIndexProgressBar {
    /// How often the bar is redrawn.
    static let interval = Duration.milliseconds(250)

    static func drawing<T: Sendable>(_ store: DocumentStore, _ body: () async throws -> T) async throws -> T {
        guard TerminalProgressBar.isTerminal else { return try await body() }
        let drawer = Task {
            var drawn = false
            while !Task.isCancelled {
                if let task = store.activeViewIndexTasks.first {
                    TerminalProgressBar.show(
                        fraction: Double(task.progress) / 100,
                        "\(task.changesDone) of \(task.totalChanges) documents mapped (\(task.designDocument))")
                    drawn = true
                }
                try? await Task.sleep(for: interval)
            }
            return drawn
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        drawer.cancel()
        if await drawer.value { TerminalProgressBar.finish() }
        return try result.get()
    }
}
