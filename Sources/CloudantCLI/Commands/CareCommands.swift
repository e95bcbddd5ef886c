internal import ArgumentParser
internal import CloudantCare
internal import Foundation

/// `cloudant care …`: CareKit entities in a store, JSON in and JSON out.
struct CareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "care",
        abstract: "Store CareKit entities with versions; list what is in effect; compute task events.",
        discussion: """
            Entities are CareKit 4 JSON, one object or an array, on standard input. Dates may be ISO 8601 \
            text or CareKit's JSONEncoder numbers (seconds since 2001-01-01). Every care command uses the \
            store `care` unless --db names another.

            Examples:
              cloudant care add task < tasks.json
              cloudant --data ./clinic care list task --at 2024-05-01T00:00:00Z
            """,
        subcommands: [
            CareAddCommand.self, CareUpdateCommand.self, CareEventsCommand.self, CareOutcomesCommand.self,
            CareListCommand.self,
        ])
}

/// The kinds the care commands accept.
enum CareKindArgument: String, ExpressibleByArgument, CaseIterable {
    case patient, careplan, contact, task, outcome, note
}

/// `cloudant care add --db NAME KIND`.
struct CareAddCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add entities (or import exact versions); prints what was stored.",
        discussion: """
            A CareKit history is imported as it is: an entity carrying both `uuid` and \
            `previousVersionUUIDs`, or whose uuid another entity names as previous, is stored as that exact \
            version, in any order; a version already stored is skipped. A broken history (a previous version \
            neither given nor stored, a cycle, two versions continuing one) is refused with exit status 2, \
            naming the object and the version. Any other entity is a new object: the store mints a missing \
            uuid and stamps its dates; an id that exists is a conflict (exit status 4). The whole input is \
            stored in one transaction, or nothing is.

            KIND note appends a note to an object's current version: \
            {"kind":"task","id":"meds","note":{"author":…,"title":…,"content":…}}.

            Examples:
              cloudant care add careplan <<< '{"id":"diabetes","title":"Diabetes"}'
              cloudant care add task < exported-task-versions.json
            """)
    @OptionGroup var arguments: CareWritingArguments

    func execute() async throws { try await arguments.write(updating: false) }
}

/// `cloudant care update --db NAME KIND`.
struct CareUpdateCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Add a new version of each entity (or import exact versions); prints what was stored.",
        discussion: """
            The store mints the new version's uuid and chains it after the current versions. Versions of a \
            CareKit history (see `care add`) are imported exactly as given, in the same transaction.

            Example: cloudant care update task < meds-at-20h.json
            """)
    @OptionGroup var arguments: CareWritingArguments

    func execute() async throws { try await arguments.write(updating: true) }
}

/// What `care add` and `care update` take: the global options, `--db NAME` and the KIND of the entities on
/// standard input.
struct CareWritingArguments: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: CareDatabaseOption
    @Argument(help: "patient, careplan, contact, task, outcome or note.") var kind: CareKindArgument

    /// Stores the entities on standard input: new versions of existing objects when `updating`, new objects
    /// otherwise (exact versions of a CareKit history are imported either way).
    func write(updating: Bool) async throws {
        let care = try global.openCare(database.db)
        try await CareWriting(care: care, updating: updating).run(kind: kind)
    }
}

/// `cloudant care events --db NAME --task ID --from ISO8601 --to ISO8601 [--tz ZONE]`.
struct CareEventsCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print a task's events in a date range, computed in a time zone.",
        discussion: """
            Prints [{"taskId","taskUUID","occurrence","elementIndex","start","end"}] with dates in ISO 8601 \
            with the zone's offset, as CareKit 4's event query computes them: each event from the task \
            version that owns its time (walking the version chain back from the newest version), all-day \
            events over the whole day.

            Example:
              cloudant care events --task meds --tz Europe/Paris \\
                --from 2024-03-30T00:00:00+01:00 --to 2024-04-01T00:00:00+02:00
            """)
    @OptionGroup var query: CareTaskQueryArguments

    func execute() async throws {
        let (zone, start, end) = try query.range.resolved()
        let care = try query.global.openCare(query.database.db, timeZone: zone)
        let task = query.range.task
        var events = Self.json(try await care.events(forTask: task, from: start, to: end, in: zone), in: zone)
        if events.isEmpty {
            // The id may name a HealthKit-linked task; its events are computed the same way.
            events = Self.json(try await care.events(forHealthKitLinkedTask: task, from: start, to: end, in: zone), in: zone)
        }
        Output.print(.array(events))
    }

    private static func json<Task: SchedulableTask>(_ events: [TaskEvent<Task>], in zone: TimeZone) -> [JSONValue] {
        events.map { event in
            [
                "taskId": .string(event.task.id), "taskUUID": .string(event.task.uuid.uuidString),
                "occurrence": .number(JSONNumber(event.occurrence)),
                "elementIndex": .number(JSONNumber(event.scheduleEvent.elementIndex)),
                "start": .string(CareCLIDates.format(event.scheduleEvent.start, in: zone)),
                "end": .string(CareCLIDates.format(event.scheduleEvent.end, in: zone)),
            ]
        }
    }
}

/// `cloudant care list --db NAME KIND [--at ISO8601]`.
struct CareListCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the versions in effect at a time (now by default).",
        discussion: """
            Prints a JSON array; while versions are concurrent, each concurrent version is listed.

            Example: cloudant care list task --at 2024-01-15T00:00:00Z
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: CareDatabaseOption
    @Argument(help: "patient, careplan, contact, task or outcome.") var kind: CareKindArgument
    @Option(help: "The instant (ISO 8601); now when absent.") var at: String?

    func execute() async throws {
        let care = try global.openCare(database.db)
        let date = try at.map { try CareCLIDates.parse($0, field: "at") } ?? Date()
        let values: [JSONValue]
        switch kind {
        case .patient: values = try await care.fetchInEffect(Patient.self, at: date).map(JSONValue.init(encoding:))
        case .careplan: values = try await care.fetchInEffect(CarePlan.self, at: date).map(JSONValue.init(encoding:))
        case .contact: values = try await care.fetchInEffect(Contact.self, at: date).map(JSONValue.init(encoding:))
        case .task: values = try await care.fetchInEffect(CareTask.self, at: date).map(JSONValue.init(encoding:))
        case .outcome: values = try await care.fetchInEffect(Outcome.self, at: date).map(JSONValue.init(encoding:))
        case .note:
            throw CloudantError(
                .invalidInput, "Notes live inside the entity they annotate; list that kind instead.",
                context: .init(field: "KIND"))
        }
        Output.print(.array(values))
    }
}

/// What `care events` and `care outcomes` take: the global options, `--db NAME`, and the task and its range.
struct CareTaskQueryArguments: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @OptionGroup var database: CareDatabaseOption
    @OptionGroup var range: CareTaskRangeOptions
}

extension GlobalOptions {
    /// Opens (creating if needed) `name` with `registry`'s kinds registered (the care kinds unless given), so their
    /// indexes exist.
    func openCare(_ name: String, timeZone: TimeZone = .current, registry: EntityRegistry? = nil) throws -> CareStore {
        let registry = try registry ?? EntityRegistry(plugins: [CarePlugin()])
        let store = try DocumentStore.open(name: name, in: stores, options: try storeOptions(registry: registry))
        return CareStore(store: store, timeZone: timeZone)
    }
}
