internal import ArgumentParser
internal import CloudantModel
internal import Foundation

/// `cloudant model …`: object model files (CDTDatastore's Core Data bridge) and the stores written with them.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Validate object model files, check a store against one, generate Swift entity types.",
        discussion: """
            A model file (*.cloudantmodel.json) describes entities, attributes, relationships and versions; \
            stores written with it hold one document per object in CDTDatastore's Core Data bridge layout.

            Examples:
              cloudant model validate Recipes.cloudantmodel.json
              cloudant --data ./kitchen model check --db recipes Recipes.cloudantmodel.json
              cloudant model generate Recipes.cloudantmodel.json --out Sources/Kitchen/Generated
            """,
        subcommands: [ModelValidateCommand.self, ModelCheckCommand.self, ModelGenerateCommand.self])
}

/// Reads a model file; a missing file is not-found (3), an invalid one invalid input (2).
func readModelFile(_ path: String) throws -> ObjectModel {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CloudantError(.notFound, "The model file \(path) does not exist.", context: .init(field: "FILE"))
    }
    return try ObjectModel(parsing: Array(data))
}

/// Prints a model file's issues, one JSON object per line, before the error.
func printingIssues<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CloudantError where error.code == .invalidModel {
        for issue in error.modelFileIssues?.issues ?? [] {
            Output.print(["path": .string(issue.path), "problem": .string(issue.message)])
        }
        throw error
    }
}

/// `cloudant model validate FILE`.
struct ModelValidateCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a model file; prints its entities and version hashes, or every problem (exit status 2).",
        discussion: "Example: cloudant model validate Recipes.cloudantmodel.json")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The model file.") var file: String

    func execute() async throws {
        let model = try printingIssues { try readModelFile(file) }
        let hashes = VersionHashes.hashes(of: model.current)
        Output.print([
            "ok": true, "name": .string(model.name),
            "versions": .array(model.versions.map { .number(JSONNumber($0.version)) }),
            "current": .number(JSONNumber(model.current.version)),
            "entities": .object(
                JSONObject(model.current.entities.map { ($0.name, JSONValue.string(hashes[$0.name] ?? "")) })),
        ])
    }
}

/// `cloudant model check --db NAME FILE`.
struct ModelCheckCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "List the documents of a store that do not match a model, with the reason.",
        discussion: """
            Prints one JSON object per problem ({"id","entity","property","problem"}) and a summary line \
            {"checked":N,"problems":M}. Exits 0 when every document matches, 2 when some do not, 3 when the \
            store or file does not exist.

            Example: cloudant model check --db recipes Recipes.cloudantmodel.json
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Argument(help: "The model file.") var file: String

    func execute() async throws {
        let model = try printingIssues { try readModelFile(file) }
        let store = try global.openExisting(database.db)
        let violations = try await ModelStore.check(store, against: model.current)
        for violation in violations {
            var line: JSONObject = ["id": violation.documentID.map(JSONValue.string) ?? .null]
            line["entity"] = violation.entity.map(JSONValue.string) ?? .null
            line["property"] = violation.property.map(JSONValue.string) ?? .null
            line["problem"] = .string(violation.reason)
            Output.print(.object(line))
        }
        let checked = try await store.info().documentCount
        Output.print(["checked": .number(JSONNumber(checked)), "problems": .number(JSONNumber(violations.count))])
        if !violations.isEmpty {
            throw CloudantError(
                .schemaViolation,
                "\(violations.count) problem\(violations.count == 1 ? "" : "s") in \(database.db) (listed above).",
                context: .init(database: database.db))
        }
    }
}

/// `cloudant model generate FILE --out DIR`.
struct ModelGenerateCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write the Swift entity types of a model file (what the build plugin generates).",
        discussion: "Example: cloudant model generate Recipes.cloudantmodel.json --out Sources/Kitchen/Generated")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The model file.") var file: String
    @Option(help: ArgumentHelp("The folder to write <Name>+Model.swift into (created if missing).", valueName: "DIR"))
    var out: String
    @Option(help: "public or internal.") var access = "public"

    func validate() throws {
        guard ["public", "internal"].contains(access) else { throw ValidationError("--access is public or internal.") }
    }

    func execute() async throws {
        let model = try printingIssues { try readModelFile(file) }
        let name = URL(fileURLWithPath: file).lastPathComponent
        let source = SwiftGenerator(model: model, sourceFile: name, accessLevel: access).source
        let target = URL(fileURLWithPath: out).appendingPathComponent(SwiftGenerator.outputFileName(forModelFile: name))
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try Data(source.utf8).write(to: target, options: .atomic)
        } catch {
            throw CloudantError(.invalidInput, "Cannot write \(target.path); check --out.", context: .init(field: "out"), underlying: error)
        }
        Output.print(["ok": true, "file": .string(target.path), "entities": .array(model.current.entities.map { .string($0.name) })])
    }
}
