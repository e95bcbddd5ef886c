internal import ArgumentParser
internal import CloudantCare
internal import CloudantHealth
internal import Foundation

/// `cloudant migrate …`: converting documents other stores wrote into this store's format.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Convert documents other stores wrote into this store's format.",
        subcommands: [MigrateOTFCommand.self])
}

/// `cloudant migrate otf --db NAME [--dry-run] [--batch N]`.
struct MigrateOTFCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "otf",
        abstract: "Convert the documents the original OTFCloudantStore wrote (after a pull or a load).",
        discussion: """
            Converts care documents (entityType or entity_type OCKPatient, OCKCarePlan, OCKContact, OCKTask, \
            OCKOutcome) into care versions, and OTFCloudantSample documents into samples of their family, one \
            transaction per batch, keeping every field and each document's revision history: a sample, or a \
            task whose id is its uuid, gets a new revision of itself; any other care document moves to its \
            uuid, leaving a deleted revision at its old id that names the new one (migratedTo). Running it \
            again converts only what is new. Prints a report: converted per original entityType, rewritten \
            in place, moved, skipped (with reasons; a skipped document is left as it is) and conflicted \
            (documents with conflicting revisions: their winner was converted).

            After converting, apps of the original no longer see these documents: convert when they are \
            retired, or convert a copy (cloudant replicate).

            Examples:
              cloudant migrate otf --db theraforge_user_42 --dry-run
              cloudant migrate otf --db theraforge_user_42
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: DatabaseOption
    @Flag(help: "Report what would be converted; write nothing.") var dryRun = false
    @Option(help: "Documents per transaction.") var batch = 200

    func validate() throws {
        guard batch > 0 else { throw ValidationError("--batch must be at least 1.") }
    }

    func execute() async throws {
        let store = try global.openExisting(database.db)
        let care = CareStore(store: store)
        let cared = try await care.migrateOTFDocuments(dryRun: dryRun, batchSize: batch)
        let sampled = try await store.migrateOTFSamples(dryRun: dryRun, batchSize: batch)
        let report = cared.merged(with: sampled)
        guard case .object(var object) = try JSONValue(encoding: report) else { return }
        object["ok"] = true
        object["db"] = .string(database.db)
        object["convertedCount"] = .number(JSONNumber(report.convertedCount))
        Output.print(.object(JSONObject(object.members.sorted { $0.key < $1.key })))
    }
}
