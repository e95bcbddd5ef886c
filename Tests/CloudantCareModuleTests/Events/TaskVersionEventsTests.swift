import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// Events across task versions as CareKit computes them (checked against CareKit's own code): each version owns
/// the events from its effective date, numbered from its own schedule's start, with the "meds" worked example.
@Suite("Events across task versions")
struct TaskVersionEventsTests {
    private let utc: Zone
    init() throws { utc = try Zone.utc() }

    private func task(hour: Int, uuid: Int, effective: Date, start: Date? = nil, end: Date? = nil) throws -> CareTask {
        let schedule = try Schedule.dailyAtTime(
            hour: hour, minutes: 0, start: start ?? utc.date(2024, 1, 1), end: end, text: nil, calendar: utc.calendar)
        return CareTask(
            id: "meds", title: "\(hour):00", carePlanUUID: nil, schedule: schedule, uuid: testUUID(uuid),
            effectiveDate: effective, timezone: utc.timeZone)
    }

    /// v1 daily at 08:00 from Jan 1, with an outcome for Jan 10 08:00 (occurrence 9).
    private func medsWithOutcome() throws -> (VersionHistory<CareTask>, VersionHistory<Outcome>, CareTask) {
        var tasks = VersionHistory<CareTask>()
        let first = try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        let outcome = Outcome(
            taskUUID: first.uuid, taskOccurrenceIndex: 9,
            values: [OutcomeValue(.boolean(true), createdDate: try utc.date(2024, 1, 10, 8, 5))], uuid: testUUID(100),
            effectiveDate: try utc.date(2024, 1, 10, 8, 5), timezone: utc.timeZone)
        return (tasks, VersionHistory([outcome]), first)
    }

    @Test func workedExample_anUpdateEffectiveBeforeARecordedEventIsRejected() throws {
        let (tasks, outcomes, _) = try medsWithOutcome()
        let evening = try task(hour: 20, uuid: 2, effective: utc.date(2024, 1, 10))
        let error = #expect(throws: CloudantError.self) {
            try OutcomeRules.validateTaskUpdate(evening, tasks: tasks, outcomes: outcomes, in: utc.timeZone)
        }
        #expect(error?.code == .updateWouldHideOutcomes)
        #expect(error?.context.field == "effectiveDate")
    }

    @Test func workedExample_theNextDayWorksAndEachVersionKeepsItsOwnEventsAndOutcomes() throws {
        let (stored, outcomes, _) = try medsWithOutcome()
        var tasks = stored
        let evening = try task(hour: 20, uuid: 2, effective: utc.date(2024, 1, 11))
        try OutcomeRules.validateTaskUpdate(evening, tasks: tasks, outcomes: outcomes, in: utc.timeZone)
        try tasks.update(evening, uuid: testUUID(2), now: try utc.date(2024, 1, 10, 12))

        let events = try tasks.events(
            forTask: "meds", from: utc.date(2024, 1, 1), to: utc.date(2024, 1, 13), in: utc.timeZone,
            outcomes: outcomes.versions)
        #expect(events.count == 12)
        #expect(events.prefix(10).allSatisfy { $0.task.uuid == testUUID(1) && utc.wallClock($0.scheduleEvent.start).hour == 8 })
        #expect(events.suffix(2).allSatisfy { $0.task.uuid == testUUID(2) && utc.wallClock($0.scheduleEvent.start).hour == 20 })
        // The new version numbers its events from its own schedule's start (Jan 1), not from 0.
        #expect(events.suffix(2).map(\.occurrence) == [10, 11])
        // The Jan 10 outcome stays on v1's event.
        let recorded = events.filter { $0.outcome != nil }
        #expect(recorded.map(\.occurrence) == [9])
        #expect(recorded.first?.task.uuid == testUUID(1))
        #expect(recorded.first.map { utc.wallClock($0.scheduleEvent.start) } == WallClock(year: 2024, month: 1, day: 10, hour: 8))
    }

    @Test func aVersionChangeDuringADayCanReturnThatDaysEventFromBothVersions() throws {
        var tasks = VersionHistory<CareTask>()
        let allDay = Schedule(composing: [
            ScheduleElement(
                start: try utc.date(2024, 1, 1), end: nil, interval: .daily, duration: .allDay, calendar: utc.calendar)
        ])
        let first = try tasks.add(
            CareTask(
                id: "walk", title: "Walk", carePlanUUID: nil, schedule: allDay, uuid: testUUID(1),
                effectiveDate: try utc.date(2024, 1, 1), timezone: utc.timeZone))
        var renamed = first
        renamed.title = "Walk more"
        renamed.effectiveDate = try utc.date(2024, 1, 10, 12)
        try tasks.update(renamed, uuid: testUUID(2), now: try utc.date(2024, 1, 10, 12))

        let events = try tasks.events(
            forTask: "walk", from: utc.date(2024, 1, 10), to: utc.date(2024, 1, 11), in: utc.timeZone)
        #expect(events.map(\.task.title) == ["Walk", "Walk more"])
        #expect(events.map(\.occurrence) == [9, 9])
    }

    @Test func anOlderVersionWithALaterEffectiveDateWinsFromThatDateOn() throws {
        var tasks = VersionHistory<CareTask>()
        try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        try tasks.update(try task(hour: 12, uuid: 0, effective: utc.date(2024, 1, 20)), uuid: testUUID(2), now: Date())
        try tasks.update(try task(hour: 16, uuid: 0, effective: utc.date(2024, 1, 10)), uuid: testUUID(3), now: Date())

        let windows = tasks.eventWindows(
            forTask: "meds", from: try utc.date(2024, 1, 1), to: try utc.date(2024, 2, 1), in: utc.timeZone)
        #expect(windows.map(\.task.uuid) == [testUUID(1), testUUID(3), testUUID(2)])
        #expect(windows.map { utc.wallClock($0.interval.start).day } == [1, 10, 20])

        let events = try tasks.events(
            forTask: "meds", from: utc.date(2024, 1, 1), to: utc.date(2024, 2, 1), in: utc.timeZone)
        let hourByDay = Dictionary(
            events.map { (utc.wallClock($0.scheduleEvent.start).day, utc.wallClock($0.scheduleEvent.start).hour) },
            uniquingKeysWith: { first, _ in first })
        #expect(hourByDay[5] == 8)
        #expect(hourByDay[15] == 16)
        #expect(hourByDay[25] == 12)
        #expect(events.count == 31)
    }

    @Test func olderVersionsEventsSurviveWhenTheNewestScheduleEndedBeforeTheRange() throws {
        var tasks = VersionHistory<CareTask>()
        try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        let shortLived = try task(
            hour: 9, uuid: 0, effective: utc.date(2024, 1, 10), start: utc.date(2024, 1, 2), end: utc.date(2024, 1, 4))
        try tasks.update(shortLived, uuid: testUUID(2), now: Date())

        let events = try tasks.events(
            forTask: "meds", from: utc.date(2024, 1, 5), to: utc.date(2024, 1, 16), in: utc.timeZone)
        #expect(events.map { utc.wallClock($0.scheduleEvent.start).day } == [5, 6, 7, 8, 9])
        #expect(events.allSatisfy { $0.task.uuid == testUUID(1) })
    }

    @Test func aFullyShadowedVersionContributesNoEvents() throws {
        var tasks = VersionHistory<CareTask>()
        try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        try tasks.update(try task(hour: 12, uuid: 0, effective: utc.date(2024, 1, 5)), uuid: testUUID(2), now: Date())
        let windows = tasks.eventWindows(
            forTask: "meds", from: try utc.date(2024, 1, 6), to: try utc.date(2024, 1, 8), in: utc.timeZone)
        #expect(windows.map(\.task.uuid) == [testUUID(2)])
    }

    @Test func aDeletedTaskHasNoEventsAfterItsTombstoneTakesEffect() throws {
        var tasks = VersionHistory<CareTask>()
        let first = try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        var gone = first
        gone.effectiveDate = try utc.date(2024, 1, 5)
        try tasks.delete(gone, uuid: testUUID(2), now: try utc.date(2024, 1, 5))
        #expect(try tasks.events(forTask: "meds", from: utc.date(2024, 1, 6), to: utc.date(2024, 1, 8), in: utc.timeZone).isEmpty)
        #expect(try tasks.events(forTask: "meds", from: utc.date(2024, 1, 2), to: utc.date(2024, 1, 3), in: utc.timeZone).count == 1)
    }

    @Test func outcomesAttachByTaskVersionAndOccurrenceNotByCreationDate() throws {
        var tasks = VersionHistory<CareTask>()
        let first = try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        // Recorded a week late: it still belongs to Jan 2's event.
        let late = Outcome(
            taskUUID: first.uuid, taskOccurrenceIndex: 1, values: [], uuid: testUUID(50),
            effectiveDate: try utc.date(2024, 1, 9), timezone: utc.timeZone)
        let events = try tasks.events(
            forTask: "meds", from: utc.date(2024, 1, 2), to: utc.date(2024, 1, 3), in: utc.timeZone, outcomes: [late])
        #expect(events.first?.outcome?.uuid == testUUID(50))
        let later = try tasks.events(
            forTask: "meds", from: utc.date(2024, 1, 9), to: utc.date(2024, 1, 10), in: utc.timeZone, outcomes: [late])
        #expect(later.first?.outcome == nil)
    }

    @Test func aDeletedOutcomeNoLongerAttaches() throws {
        var tasks = VersionHistory<CareTask>()
        let first = try tasks.add(try task(hour: 8, uuid: 1, effective: utc.date(2024, 1, 1)))
        var outcomes = VersionHistory<Outcome>()
        let outcome = try outcomes.add(
            Outcome(
                taskUUID: first.uuid, taskOccurrenceIndex: 0, values: [], uuid: testUUID(50),
                effectiveDate: try utc.date(2024, 1, 1), timezone: utc.timeZone))
        try outcomes.delete(outcome, uuid: testUUID(51), now: try utc.date(2024, 1, 2))
        let events = try tasks.events(
            forTask: "meds", from: utc.date(2024, 1, 1), to: utc.date(2024, 1, 2), in: utc.timeZone,
            outcomes: outcomes.versions)
        #expect(events.first?.outcome == nil)
    }
}
