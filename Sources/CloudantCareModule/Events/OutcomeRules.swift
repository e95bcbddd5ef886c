internal import CloudantCore
public import Foundation

/// CareKit's guards that keep outcomes attached to events (OCKStore's outcome checks: no outcome for a deleted or later task version,
/// one outcome per event), as pure checks
/// the store runs before it writes.
///
/// ```swift
/// try OutcomeRules.validateNewOutcome(outcome, tasks: taskHistory, outcomes: outcomeHistory, in: zone)
/// try OutcomeRules.validateTaskUpdate(newVersion, tasks: taskHistory, outcomes: outcomeHistory, in: zone)
/// ```
public enum OutcomeRules {
    /// Checks that a new outcome (or a new version of one) points at a real, visible, free event.
    ///
    /// - Parameters:
    ///   - outcome: The outcome to write.
    ///   - tasks: The task versions.
    ///   - outcomes: The outcomes already stored.
    ///   - timeZone: The zone in which schedules are computed.
    /// - Throws: `CloudantError.Code.orphanedOutcome` when the task version is unknown, the
    ///   occurrence is not in its schedule, or a newer task version took over before the event starts;
    ///   `CloudantError.Code.duplicateOutcome` when another live outcome has that event;
    ///   `CloudantError.Code.invalidSchedule` when the task's schedule is invalid.
    public static func validateNewOutcome<Version: SchedulableTask>(
        _ outcome: Outcome, tasks: VersionHistory<Version>, outcomes: VersionHistory<Outcome>, in timeZone: TimeZone
    ) throws {
        let holders = liveOutcomeIDsByOccurrence(outcomes, taskUUID: outcome.taskUUID)
        try validateNewOutcome(outcome, tasks: tasks, liveOutcomeIDs: { holders[$0] ?? [] }) { task in
            try task.schedule.event(forOccurrence: outcome.taskOccurrenceIndex, in: timeZone)
        }
    }

    /// The ids of the live outcomes recorded against task version `taskUUID`, by occurrence index.
    static func liveOutcomeIDsByOccurrence(_ outcomes: VersionHistory<Outcome>, taskUUID: UUID) -> [Int: [String]] {
        Dictionary(grouping: outcomes.liveTips.filter { $0.taskUUID == taskUUID }, by: \.taskOccurrenceIndex)
            .mapValues { $0.map(\.id) }
    }

    /// ``validateNewOutcome(_:tasks:outcomes:in:)`` with the event found by `event` (from its task version)
    /// and the live outcomes of the task version given by occurrence, so a batch computes both once.
    static func validateNewOutcome<Version: SchedulableTask>(
        _ outcome: Outcome, tasks: VersionHistory<Version>, liveOutcomeIDs: (Int) -> [String],
        event findEvent: (Version) throws -> ScheduleEvent?
    ) throws {
        let context = CloudantError.Context(documentID: outcome.id, kind: "outcome", field: "taskUUID")
        guard let task = tasks.version(uuid: outcome.taskUUID) else {
            throw CloudantError(
                .orphanedOutcome, "No task version has this taskUUID; add the task first.", context: context)
        }
        guard let event = try findEvent(task) else {
            throw CloudantError(
                .orphanedOutcome, "The task's schedule has no event with this occurrence index.",
                context: context.with(field: "taskOccurrenceIndex"))
        }
        if tasks.next(of: task).contains(where: { $0.effectiveDate <= event.start }) {
            throw CloudantError(
                .orphanedOutcome,
                "A newer task version took over before this event; record the outcome against that version.",
                context: context)
        }
        if liveOutcomeIDs(outcome.taskOccurrenceIndex).contains(where: { $0 != outcome.id }) {
            throw CloudantError(
                .duplicateOutcome, "This event already has an outcome; update that outcome instead.",
                context: context.with(field: "taskOccurrenceIndex"))
        }
    }

    /// Checks that a new task version does not take over at or before an event that already has an outcome
    /// (CareKit's `confirmUpdateWillNotCauseDataLoss`).
    ///
    /// Walks the task's chain back from its tips through the first previous version and finds the latest event
    /// start among the live outcomes of those versions.
    ///
    /// - Throws: `CloudantError.Code.updateWouldHideOutcomes` when `newVersion.effectiveDate` is
    ///   at or before that start; `CloudantError.Code.invalidSchedule` for an invalid schedule.
    public static func validateTaskUpdate<Version: SchedulableTask>(
        _ newVersion: Version, tasks: VersionHistory<Version>, outcomes: VersionHistory<Outcome>, in timeZone: TimeZone
    ) throws {
        var chain: [UUID: Version] = [:]
        for tip in tasks.tips(id: newVersion.id) {
            var current: Version? = tip
            while let version = current, chain[version.uuid] == nil {
                chain[version.uuid] = version
                current = version.previousVersionUUIDs.first.flatMap { tasks.version(uuid: $0) }
            }
        }
        var latest: Date?
        for outcome in outcomes.liveTips {
            guard let task = chain[outcome.taskUUID],
                let event = try task.schedule.event(forOccurrence: outcome.taskOccurrenceIndex, in: timeZone)
            else { continue }
            latest = max(latest ?? event.start, event.start)
        }
        if let latest, newVersion.effectiveDate <= latest {
            throw CloudantError(
                .updateWouldHideOutcomes,
                "The new version takes effect at or before an event that has an outcome; move effectiveDate past "
                    + "the last outcome's event, or delete those outcomes first.",
                context: .init(documentID: newVersion.id, kind: "task", field: "effectiveDate"))
        }
    }
}

extension CloudantError.Context {
    func with(field: String) -> Self {
        var copy = self
        copy.field = field
        return copy
    }
}
