internal import CloudantCore
internal import CloudantStore
internal import Foundation

// CareKit's outcome guards (OCKStore's checks when tasks and outcomes are written) run against what is stored, through OutcomeRules.
extension CareStore {
    /// Rejects a task version that would take effect at or before an event that has an outcome.
    func checkTaskUpdate<Entity: CareStorable>(_ candidate: Entity, history: VersionHistory<Entity>) async throws {
        guard let task = candidate as? any SchedulableTask else { return }
        let outcomes = try await outcomeVersions(taskUUIDs: history.versions(id: candidate.id).map(\.uuid))
        try Self.validateTaskUpdate(task, history: history, outcomes: VersionHistory(outcomes), timeZone: timeZone)
    }

    private static func validateTaskUpdate<Task: SchedulableTask>(
        _ task: Task, history: Any, outcomes: VersionHistory<Outcome>, timeZone: TimeZone
    ) throws {
        guard let tasks = history as? VersionHistory<Task> else { return }
        try OutcomeRules.validateTaskUpdate(task, tasks: tasks, outcomes: outcomes, in: timeZone)
    }

    /// Checks an outcome against its task and the other outcomes (stored, and `pending` in the same batch), and
    /// returns the event it records. What it reads is kept in `cache`, so a batch of k outcomes for one task
    /// reads the task and its stored outcomes once, not k times.
    func checkOutcome(_ outcome: Outcome, pending: [Outcome], cache: OutcomeCheckCache) async throws -> ScheduleEvent? {
        let kinds = Outcome.careRelation?.kindNames ?? []
        let document: JSONObject?
        if let read = cache.taskDocuments[outcome.taskUUID] {
            document = read
        } else {
            document = try await versionDocument(uuid: outcome.taskUUID, kinds: kinds)
            cache.taskDocuments[outcome.taskUUID] = .some(document)
        }
        guard let document else {
            throw CloudantError(
                .orphanedOutcome, "No task version has this taskUUID; add the task first.",
                context: .init(documentID: outcome.id, kind: Outcome.careKindName, field: "taskUUID"))
        }
        if CareDocument.kind(of: document) == HealthKitLinkedTask.careKindName {
            let task = try CareDocument.entity(HealthKitLinkedTask.self, from: document)
            return try await checkOutcome(outcome, task: task, pending: pending, cache: cache)
        }
        let task = try CareDocument.entity(CareTask.self, from: document)
        return try await checkOutcome(outcome, task: task, pending: pending, cache: cache)
    }

    private func checkOutcome<Task: SchedulableTask & CareStorable>(
        _ outcome: Outcome, task: Task, pending: [Outcome], cache: OutcomeCheckCache
    ) async throws -> ScheduleEvent? {
        let tasks: VersionHistory<Task>
        if let read = cache.taskHistories[task.id] as? VersionHistory<Task> {
            tasks = read
        } else {
            tasks = try await history(Task.self, ids: [task.id])
            cache.taskHistories[task.id] = tasks
        }
        let holders: [Int: [String]]
        if let built = cache.liveOutcomeIDs[outcome.taskUUID] {
            holders = built
        } else {
            // The stored outcomes of this task version and the whole batch, the outcome itself included.
            let outcomes = VersionHistory(try await outcomeVersions(taskUUIDs: [outcome.taskUUID]) + pending)
            holders = OutcomeRules.liveOutcomeIDsByOccurrence(outcomes, taskUUID: outcome.taskUUID)
            cache.liveOutcomeIDs[outcome.taskUUID] = holders
        }
        var event: ScheduleEvent?
        try OutcomeRules.validateNewOutcome(outcome, tasks: tasks, liveOutcomeIDs: { holders[$0] ?? [] }) { version in
            event = try cache.event(of: outcome, in: version, pending: pending, timeZone: timeZone)
            return event
        }
        return event
    }

    /// The events the outcomes record, for those whose task version is stored (imports and merges store
    /// outcomes without guards). Each task's events are computed once, up to its largest occurrence, instead of
    /// once per outcome.
    func outcomeEvents(_ outcomes: [Outcome]) async throws -> [UUID: ScheduleEvent] {
        var result: [UUID: ScheduleEvent] = [:]
        let kinds = Outcome.careRelation?.kindNames ?? []
        for (taskUUID, group) in Dictionary(grouping: outcomes, by: \.taskUUID) {
            guard let document = try await versionDocument(uuid: taskUUID, kinds: kinds) else { continue }
            let schedule: Schedule =
                if CareDocument.kind(of: document) == HealthKitLinkedTask.careKindName {
                    try CareDocument.entity(HealthKitLinkedTask.self, from: document).schedule
                } else {
                    try CareDocument.entity(CareTask.self, from: document).schedule
                }
            let largest = max(group.map(\.taskOccurrenceIndex).max() ?? 0, 0)
            let occurrences = (try? schedule.events(throughOccurrence: largest, in: timeZone)) ?? []
            for outcome in group where occurrences.indices.contains(outcome.taskOccurrenceIndex) {
                result[outcome.uuid] = occurrences[outcome.taskOccurrenceIndex]
            }
        }
        return result
    }

    /// Every stored outcome version recorded against these task versions.
    func outcomeVersions(taskUUIDs: [UUID]) async throws -> [Outcome] {
        let documents = try await versionDocuments(
            kind: Outcome.careKindName, field: "taskUUID", values: taskUUIDs.map { .string($0.uuidString) })
        return try documents.map { try CareDocument.entity(Outcome.self, from: $0) }
    }

    /// One of `uuids` that some stored version (of any kind) already has, if any.
    func storedUUID(among uuids: [UUID]) async throws -> UUID? {
        guard !uuids.isEmpty else { return nil }
        let selector: JSONObject = ["_id": ["$in": .array(uuids.map { .string(CareDocument.id(for: $0)) })]]
        let taken = try await store.find(Self.request(selector)).docs.first
        return taken?["_id"]?.stringValue.flatMap(UUID.init(uuidString:))
    }
}

/// What one batch's outcome checks have read, by task version uuid and task id; lives for one write.
final class OutcomeCheckCache {
    /// The task version document of each taskUUID (`.some(nil)`: none is stored).
    var taskDocuments: [UUID: JSONObject?] = [:]
    /// Each task id's version history (a `VersionHistory` of its task type).
    var taskHistories: [String: Any] = [:]
    /// The live outcomes (stored, and the batch's) of each task version: their ids by occurrence index.
    var liveOutcomeIDs: [UUID: [Int: [String]]] = [:]
    /// Each task version's events through the largest occurrence the batch records against it.
    private var events: [UUID: [ScheduleEvent]] = [:]

    /// The event `outcome` records in `task` (its task version): the events of a task version are computed
    /// once per batch, up to the largest occurrence any outcome of `pending` has there (measured: computing
    /// each outcome's event alone made a batch of 300 daily outcomes quadratic, 1.6 s in a debug build).
    func event<Task: SchedulableTask>(
        of outcome: Outcome, in task: Task, pending: [Outcome], timeZone: TimeZone
    ) throws -> ScheduleEvent? {
        let occurrences: [ScheduleEvent]
        if let computed = events[task.uuid] {
            occurrences = computed
        } else {
            let largest = pending.lazy.filter { $0.taskUUID == task.uuid }.map(\.taskOccurrenceIndex).max()
            occurrences = try task.schedule.events(
                throughOccurrence: max(largest ?? 0, outcome.taskOccurrenceIndex), in: timeZone)
            events[task.uuid] = occurrences
        }
        if occurrences.indices.contains(outcome.taskOccurrenceIndex) { return occurrences[outcome.taskOccurrenceIndex] }
        // Past the schedule's end, or a negative index (which throws there).
        return try task.schedule.event(forOccurrence: outcome.taskOccurrenceIndex, in: timeZone)
    }
}
