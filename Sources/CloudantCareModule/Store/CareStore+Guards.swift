internal import CloudantCore
internal import CloudantStore
internal import Foundation

// CareKit's guards (carekit-anchors §2 rules 5 and 6) run against what is stored, through OutcomeRules.
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
        let outcomes: VersionHistory<Outcome>
        if let built = cache.outcomeHistories[outcome.taskUUID] {
            outcomes = built
        } else {
            // The stored outcomes of this task version and the whole batch, the outcome itself included.
            outcomes = VersionHistory(try await outcomeVersions(taskUUIDs: [outcome.taskUUID]) + pending)
            cache.outcomeHistories[outcome.taskUUID] = outcomes
        }
        try OutcomeRules.validateNewOutcome(outcome, tasks: tasks, outcomes: outcomes, in: timeZone)
        return try task.schedule.event(forOccurrence: outcome.taskOccurrenceIndex, in: timeZone)
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
            let largest = group.map(\.taskOccurrenceIndex).max() ?? 0
            var byOccurrence: [Int: ScheduleEvent] = [:]
            if let last = try? schedule.event(forOccurrence: largest, in: timeZone), let start = schedule.startDate,
                let events = try? schedule.events(from: start, to: last.start.addingTimeInterval(1), in: timeZone)
            {
                for event in events { byOccurrence[event.occurrence] = event }
            }
            for outcome in group {
                let event =
                    byOccurrence[outcome.taskOccurrenceIndex]
                    ?? (try? schedule.event(forOccurrence: outcome.taskOccurrenceIndex, in: timeZone)) ?? nil
                if let event { result[outcome.uuid] = event }
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

    /// Rejects uuids some stored version (of any kind) already has.
    func checkUnusedUUIDs(_ uuids: [UUID]) async throws {
        guard !uuids.isEmpty else { return }
        let selector: JSONObject = ["_id": ["$in": .array(uuids.map { .string(CareDocument.id(for: $0)) })]]
        if let taken = try await store.find(Self.request(selector)).docs.first {
            throw CloudantError(
                .duplicateVersion, "A version with this uuid is already stored; give the new object a fresh uuid.",
                context: .init(documentID: taken["_id"]?.stringValue, field: "uuid"))
        }
    }
}

/// What one batch's outcome checks have read, by task version uuid and task id; lives for one write.
final class OutcomeCheckCache {
    /// The task version document of each taskUUID (`.some(nil)`: none is stored).
    var taskDocuments: [UUID: JSONObject?] = [:]
    /// Each task id's version history (a `VersionHistory` of its task type).
    var taskHistories: [String: Any] = [:]
    /// The stored outcomes of each task version plus the batch's.
    var outcomeHistories: [UUID: VersionHistory<Outcome>] = [:]
}
