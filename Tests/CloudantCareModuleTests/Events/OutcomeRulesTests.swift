import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// CareKit's outcome guards: which outcomes a task's events accept.
@Suite("Outcome guards")
struct OutcomeRulesTests {
    private let utc: Zone
    init() throws { utc = try Zone.utc() }

    private func tasks() throws -> VersionHistory<CareTask> {
        var history = VersionHistory<CareTask>()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: utc.date(2024, 1, 31), text: nil,
            calendar: utc.calendar)
        let first = try history.add(
            CareTask(
                id: "meds", title: nil, carePlanUUID: nil, schedule: schedule, uuid: testUUID(1),
                effectiveDate: try utc.date(2024, 1, 1), timezone: utc.timeZone))
        var next = first
        next.effectiveDate = try utc.date(2024, 1, 11)
        try history.update(next, uuid: testUUID(2), now: try utc.date(2024, 1, 10))
        return history
    }

    private func outcome(task: Int = 1, occurrence: Int, uuid: Int, id: String? = nil) throws -> Outcome {
        Outcome(
            taskUUID: testUUID(task), taskOccurrenceIndex: occurrence, values: [], id: id, uuid: testUUID(uuid),
            effectiveDate: try utc.date(2024, 1, 1), timezone: utc.timeZone)
    }

    @Test func anOutcomeForAVisibleEventIsAccepted() throws {
        try OutcomeRules.validateNewOutcome(
            try outcome(occurrence: 9, uuid: 10), tasks: try tasks(), outcomes: VersionHistory(), in: utc.timeZone)
    }

    /// An outcome for an unknown task version, and one for an occurrence past the schedule, each naming the field.
    @Test(arguments: [
        (task: 77, occurrence: 0, field: "taskUUID"), (task: 1, occurrence: 30, field: "taskOccurrenceIndex"),
    ])
    func anOutcomeWithoutItsEventIsOrphanedNamingTheField(task: Int, occurrence: Int, field: String) throws {
        let error = #expect(throws: CloudantError.self) {
            try OutcomeRules.validateNewOutcome(
                try outcome(task: task, occurrence: occurrence, uuid: 10), tasks: try tasks(),
                outcomes: VersionHistory(), in: utc.timeZone)
        }
        #expect(error?.code == .orphanedOutcome)
        #expect(error?.context.field == field)
    }

    @Test func anEventShadowedByANewerTaskVersionIsOrphaned() throws {
        let error = #expect(throws: CloudantError.self) {
            try OutcomeRules.validateNewOutcome(
                try outcome(occurrence: 10, uuid: 10), tasks: try tasks(), outcomes: VersionHistory(), in: utc.timeZone)
        }
        #expect(error?.code == .orphanedOutcome)
        // The same event through the newer version is fine.
        try OutcomeRules.validateNewOutcome(
            try outcome(task: 2, occurrence: 10, uuid: 11), tasks: try tasks(), outcomes: VersionHistory(),
            in: utc.timeZone)
    }

    @Test func aSecondLiveOutcomeForOneEventIsADuplicate() throws {
        let existing = VersionHistory([try outcome(occurrence: 3, uuid: 10, id: "first")])
        let error = #expect(throws: CloudantError.self) {
            try OutcomeRules.validateNewOutcome(
                try outcome(occurrence: 3, uuid: 11, id: "second"), tasks: try tasks(), outcomes: existing,
                in: utc.timeZone)
        }
        #expect(error?.code == .duplicateOutcome)
        // A new version of the same outcome is an update, not a duplicate.
        try OutcomeRules.validateNewOutcome(
            try outcome(occurrence: 3, uuid: 12, id: "first"), tasks: try tasks(), outcomes: existing,
            in: utc.timeZone)
    }

    @Test func aDeletedOutcomeFreesItsEvent() throws {
        var existing = VersionHistory<Outcome>()
        let first = try existing.add(try outcome(occurrence: 3, uuid: 10, id: "first"))
        try existing.delete(first, uuid: testUUID(13), now: try utc.date(2024, 1, 5))
        try OutcomeRules.validateNewOutcome(
            try outcome(occurrence: 3, uuid: 11, id: "second"), tasks: try tasks(), outcomes: existing,
            in: utc.timeZone)
    }

    @Test func aTaskUpdateAfterTheLastOutcomeIsAccepted() throws {
        let history = try tasks()
        let outcomes = VersionHistory([try outcome(task: 2, occurrence: 12, uuid: 10)])
        var later = try #require(history.tips(id: "meds").first)
        later.effectiveDate = try utc.date(2024, 1, 13, 8, 0, 1)
        try OutcomeRules.validateTaskUpdate(later, tasks: history, outcomes: outcomes, in: utc.timeZone)
        later.effectiveDate = try utc.date(2024, 1, 13, 8)
        let error = #expect(throws: CloudantError.self) {
            try OutcomeRules.validateTaskUpdate(later, tasks: history, outcomes: outcomes, in: utc.timeZone)
        }
        #expect(error?.code == .updateWouldHideOutcomes)
    }
}
