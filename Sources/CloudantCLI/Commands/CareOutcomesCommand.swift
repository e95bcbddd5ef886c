internal import ArgumentParser
internal import CloudantCare
internal import CloudantCareHealthBridge
internal import CloudantHealth
internal import Foundation

/// `cloudant care outcomes --db NAME --task ID --from ISO8601 --to ISO8601 [--tz ZONE]`.
struct CareOutcomesCommand: CloudantCommand {
    static let configuration = CommandConfiguration(
        commandName: "outcomes",
        abstract: "Print a task's events in a date range with their outcomes.",
        discussion: """
            Prints [{"taskId","taskUUID","occurrence","start","end","outcome"}], the events as `care events` \
            computes them. For a HealthKit-linked task (a task stored with a healthKitLinkage) the outcome is \
            computed now from the quantity samples in the same store (`health import --db` the same NAME): \
            {"values":[{"type":"double","value","units"}],"sampleUUIDs":[[…]]}, one summed value for a \
            cumulative quantity (a sample straddling an event's boundary counts in proportion to its overlap), \
            one value per sample for a discrete one. For a plain task it is the stored outcome. An event without \
            one has "outcome": null. A sample whose unit cannot be converted to the linkage's exits with status 2.

            Example:
              cloudant health import --db me export.zip
              cloudant care add task --db me < steps-task.json
              cloudant care outcomes --db me --task steps --tz Europe/Paris \\
                --from 2024-03-30T00:00:00+01:00 --to 2024-04-01T00:00:00+02:00
            """)
    @OptionGroup var query: CareTaskQueryArguments

    func execute() async throws {
        let (zone, start, end) = try query.range.resolved()
        guard start < end else {
            throw CloudantError(.invalidInput, "--to must be after --from.", context: .init(field: "to"))
        }
        let care = try query.global.openCare(query.database.db, timeZone: zone, registry: try .careHealth())
        let plain = try await care.events(forTask: query.range.task, from: start, to: end, in: zone)
        if !plain.isEmpty {
            Output.print(.array(try plain.map { try Self.json($0, in: zone) }))
            return
        }
        let linked = try await CareHealthStore(care: care).fetchEvents(
            taskID: query.range.task, in: DateInterval(start: start, end: end), timeZone: zone)
        Output.print(.array(try linked.map { try Self.json($0, in: zone) }))
    }

    private static func eventJSON(
        taskID: String, taskUUID: UUID, event: ScheduleEvent, outcome: JSONValue, in zone: TimeZone
    ) -> JSONValue {
        [
            "taskId": .string(taskID), "taskUUID": .string(taskUUID.uuidString),
            "occurrence": .number(JSONNumber(event.occurrence)),
            "start": .string(CareCLIDates.format(event.start, in: zone)),
            "end": .string(CareCLIDates.format(event.end, in: zone)), "outcome": outcome,
        ]
    }

    /// A plain task's event with its stored outcome, as CareKit JSON.
    private static func json(_ event: TaskEvent<CareTask>, in zone: TimeZone) throws -> JSONValue {
        let outcome = try event.outcome.map { try JSONValue(encoding: $0) } ?? .null
        return eventJSON(
            taskID: event.task.id, taskUUID: event.task.uuid, event: event.scheduleEvent, outcome: outcome, in: zone)
    }

    /// A HealthKit-linked task's event with its computed outcome (no `createdDate`: it would be the time of the
    /// command, and the output would differ from run to run).
    private static func json(_ event: HealthKitTaskEvent, in zone: TimeZone) throws -> JSONValue {
        var outcome = JSONValue.null
        if let computed = event.outcome {
            let values: [JSONValue] = computed.values.map { value in
                var object: JSONObject = ["type": .string(value.type.rawValue)]
                if let number = value.numericValue { object["value"] = .number(JSONNumber(number)) }
                if let units = value.units { object["units"] = .string(units) }
                return .object(object)
            }
            outcome = [
                "values": .array(values),
                "sampleUUIDs": .array(computed.sampleUUIDs.map { .array($0.map { .string($0) }) }),
            ]
        }
        return eventJSON(
            taskID: event.task.id, taskUUID: event.task.uuid, event: event.scheduleEvent, outcome: outcome, in: zone)
    }
}
