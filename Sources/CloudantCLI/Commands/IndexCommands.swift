internal import ArgumentParser
internal import CloudantOnly

/// `cloudant index create|list|delete`: Cloudant Query indexes (CouchDB's `_index` endpoints).
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "Create, list and delete Cloudant Query (JSON and full-text) indexes.",
        discussion: "Example: cloudant index create --db demo age --name by-age",
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an index and fill it; prints CouchDB's {\"result\":\"created\"|\"exists\",\"id\",\"name\"}.",
            discussion: """
                A text index with no fields indexes every string in the document.

                Examples:
                  cloudant index create --db demo age name:desc --name by-age
                  cloudant index create --db demo --type text --analyzer porter title body
                  cloudant index create --db demo \\
                    '{"index":{"fields":["age"]},"ddoc":"people","name":"by-age"}'
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(help: "The index name (default: the hex SHA-1 of the definition).") var name: String?
        @Option(help: "The design document (default: the index name).") var ddoc: String?
        @Option(help: "json or text.") var type = "json"
        @Option(help: "For text indexes: standard, porter or simple.") var analyzer: String?
        @Option(name: .customLong("partial-filter"), help: "Only index documents matching this selector JSON.")
        var partialFilter: String?
        @Argument(help: "Fields (append :desc for descending), or one CouchDB _index request body as JSON.")
        var fields: [String] = []

        func execute() async throws {
            let body: JSONValue
            if fields.count == 1, fields[0].hasPrefix("{") {
                body = .object(try readJSONObject(fields[0]))
            } else {
                var index: JSONObject = [:]
                index["fields"] =
                    type == "text" && fields.isEmpty
                    ? "all_fields"
                    : .array(
                        fields.map { field in
                            if type == "text" { return ["name": .string(field), "type": "string"] }
                            if field.hasSuffix(":desc") { return [String(field.dropLast(5)): "desc"] }
                            if field.hasSuffix(":asc") { return [String(field.dropLast(4)): "asc"] }
                            return .string(field)
                        })
                if let partialFilter { index["partial_filter_selector"] = .object(try readJSONObject(partialFilter)) }
                if let analyzer { index["analyzer"] = .string(analyzer) }
                var request: JSONObject = ["index": .object(index), "type": .string(type)]
                if let name { request["name"] = .string(name) }
                if let ddoc { request["ddoc"] = .string(ddoc) }
                body = .object(request)
            }
            let definition = try IndexDefinition(indexRequest: body)
            Output.print(try await global.openOrCreate(database.db).createIndex(definition).json)
        }
    }

    struct List: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the indexes as CouchDB's GET /db/_index JSON.",
            discussion: "Example: cloudant index list --db demo")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption

        func execute() async throws {
            Output.print(try await global.openExisting(database.db).indexListingJSON())
        }
    }

    struct Delete: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an index; prints {\"ok\":true}.",
            discussion: "Example: cloudant index delete --db demo by-age by-age")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(help: "json or text.") var type = "json"
        @Argument(help: "The design document (with or without _design/).") var ddoc: String
        @Argument(help: "The index name.") var name: String

        func execute() async throws {
            guard let indexType = IndexDefinition.IndexType(rawValue: type) else {
                throw CloudantError(.invalidInput, "--type is json or text.", context: .init(field: "type"))
            }
            try await global.openExisting(database.db).deleteIndex(designDocument: ddoc, name: name, type: indexType)
            Output.print(["ok": true])
        }
    }
}
