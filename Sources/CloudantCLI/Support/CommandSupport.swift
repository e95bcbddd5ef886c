internal import ArgumentParser
internal import CloudantOnly
internal import Foundation

/// The `--db NAME` option of every document command, and how a command opens its store.
struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store to use (a CouchDB database name).", valueName: "NAME"))
    var db: String
}

/// The `--db NAME` option of every `care` command: the store `care` unless named.
struct CareDatabaseOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store holding the care entities.", valueName: "NAME"))
    var db = "care"
}

/// The task and time range of `care events` and `care outcomes`: `--task ID --from ISO8601 --to ISO8601 [--tz ZONE]`.
struct CareTaskRangeOptions: ParsableArguments {
    @Option(help: "The task's id.") var task: String
    @Option(help: "The range start (ISO 8601).") var from: String
    @Option(help: "The range end, exclusive (ISO 8601).") var to: String
    @Option(help: "An IANA time zone such as Europe/Paris; the system's when absent.") var tz: String?

    /// The zone, start and end the options name; a bad zone or instant is invalid input naming its option.
    func resolved() throws -> (zone: TimeZone, start: Date, end: Date) {
        (try CareCLIDates.timeZone(tz), try CareCLIDates.parse(from, field: "from"), try CareCLIDates.parse(to, field: "to"))
    }
}

/// The `--db NAME` option of every `health` and `route` command: the store `health` unless named.
struct HealthDatabaseOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store holding the health samples.", valueName: "NAME"))
    var db = "health"
}

extension GlobalOptions {
    /// Opens `name` for reading: a missing store is CouchDB's "Database does not exist.".
    func openExisting(_ name: String) throws -> DocumentStore {
        guard try stores.containsStore(name) else {
            throw CloudantError(.notFound, "Database does not exist.", context: .init(database: name))
        }
        return try DocumentStore.open(name: name, in: stores, options: try storeOptions())
    }

    /// Opens `name` for writing, creating it when missing (an embedded store, like a SQLite file).
    func openOrCreate(_ name: String) throws -> DocumentStore {
        try DocumentStore.open(name: name, in: stores, options: try storeOptions())
    }
}

/// A command that prints CouchDB-shaped errors to standard error and exits with its error's category's status
/// (``CloudantCore/ErrorCategory/exitStatus``).
protocol CloudantCommand: AsyncParsableCommand {
    func execute() async throws
}

extension CloudantCommand {
    func run() async throws {
        do {
            try await execute()
        } catch let exit as ExitCode {
            throw exit
        } catch let validation as ValidationError {
            // ArgumentParser prints it with the usage; `Cloudant.main()` gives it the invalid-input status.
            throw validation
        } catch {
            Output.printError(error)
            throw ErrorCategory(of: error).exitCode
        }
    }
}

/// Turns `--sort a,b:desc` into a Mango `sort` array: a bare name ascends, `:asc`/`:desc` set the direction.
func sortJSON(_ option: String) -> JSONValue {
    .array(
        option.split(separator: ",").map { field in
            if field.hasSuffix(":desc") { return [String(field.dropLast(5)): "desc"] }
            if field.hasSuffix(":asc") { return [String(field.dropLast(4)): "asc"] }
            return .string(String(field))
        })
}

/// Reads a JSON object from an argument, or from standard input when the argument is absent or `-`.
func readJSONObject(_ argument: String?) throws -> JSONObject {
    let bytes: [UInt8]
    if let argument, argument != "-" {
        bytes = Array(argument.utf8)
    } else {
        bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
    }
    guard case .object(let object) = try JSONValue(parsing: bytes) else {
        throw CloudantError(.invalidInput, "Document must be a JSON object.")
    }
    return object
}
