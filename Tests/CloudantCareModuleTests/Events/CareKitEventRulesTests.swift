import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// CareKit 4's event query rules (OCKReadOnlyEventStore+VersioningUtilities.swift, OCKSchedule.swift,
/// OCKScheduleElement.swift at 59e1d702), on cases the recorded vectors do not list.
@Suite("CareKit event rules")
struct CareKitEventRulesTests {
    private let newYork: Zone
    init() throws { newYork = try Zone.newYork() }

    /// A task read from JSON as CareKit or a user writes it; without `effectiveDate` it takes CareKit's default.
    private func task(_ json: String) throws -> CareTask {
        let decoder = CloudantJSONCoding.makeDecoder()
        decoder.userInfo[CareDecodingDefaults.userInfoKey] = CareDecodingDefaults()
        return try decoder.decode(CareTask.self, from: Data(json.utf8))
    }

    private func daily(hour: Int, uuid: Int, effective: Date, after previous: Int? = nil) throws -> CareTask {
        let schedule = try Schedule.dailyAtTime(
            hour: hour, minutes: 0, start: newYork.date(2025, 1, 1), end: nil, text: nil, calendar: newYork.calendar)
        var task = CareTask(
            id: "meds", title: "\(hour):00", carePlanUUID: nil, schedule: schedule, uuid: testUUID(uuid),
            effectiveDate: effective, timezone: newYork.timeZone)
        task.previousVersionUUIDs = previous.map { [testUUID($0)] } ?? []
        return task
    }

    private func starts(_ events: [TaskEvent<CareTask>]) -> [String] {
        events.map {
            let clock = newYork.wallClock($0.scheduleEvent.start)
            return "\(clock.month)/\(clock.day) \(clock.hour):00 v\($0.task.uuid.uuidString.suffix(1))"
        }
    }

    @Test func anAllDayElementWrittenAfterTheQueryEndOnTheSameDayIsReturnedForTheWholeDay() throws {
        // CareKit snaps an all-day element (and so the task's default effective date) to the start of its day.
        let evening = try task(
            """
            {"id":"t","uuid":"\(testUUID(1).uuidString)","timezone":{"identifier":"America/New_York"},
             "schedule":{"elements":[{"start":"2025-06-09T20:00:00-04:00","interval":{"weekOfYear":1},
               "duration":{"isAllDay":true},"targetValues":[]}]}}
            """)
        #expect(evening.effectiveDate(in: newYork.timeZone) == (try newYork.date(2025, 6, 9)))
        let events = try VersionHistory([evening]).events(
            forTask: "t", from: newYork.date(2025, 6, 9, 6), to: newYork.date(2025, 6, 9, 12), in: newYork.timeZone)
        #expect(events.count == 1)
        #expect(events.first?.scheduleEvent.start == (try newYork.date(2025, 6, 9)))
        #expect(events.first?.scheduleEvent.end == (try newYork.date(2025, 6, 9, 23, 59, 59)))
        #expect(events.first?.occurrence == 0)
    }

    @Test func anExplicitEffectiveDateIsKeptEvenForAnAllDaySchedule() throws {
        var later = try task(
            """
            {"id":"t","uuid":"\(testUUID(1).uuidString)","timezone":{"identifier":"America/New_York"},
             "effectiveDate":"2025-06-09T21:00:00-04:00",
             "schedule":{"elements":[{"start":"2025-06-09T20:00:00-04:00","interval":{"weekOfYear":1},
               "duration":{"isAllDay":true},"targetValues":[]}]}}
            """)
        #expect(later.effectiveDate(in: newYork.timeZone) == (try newYork.date(2025, 6, 9, 21)))
        let morning = try VersionHistory([later]).events(
            forTask: "t", from: newYork.date(2025, 6, 9, 6), to: newYork.date(2025, 6, 9, 12), in: newYork.timeZone)
        #expect(morning.isEmpty)
        later.effectiveDate = try newYork.date(2025, 6, 9, 5)
        let earlier = try VersionHistory([later]).events(
            forTask: "t", from: newYork.date(2025, 6, 9, 6), to: newYork.date(2025, 6, 9, 12), in: newYork.timeZone)
        #expect(earlier.count == 1)
    }

    @Test func anAllDayElementComesBeforeElementsThatStartEarlierOnItsDay() throws {
        let schedule = try JSONValue(
            parsing: """
                {"elements":[
                  {"start":"2025-06-09T10:00:00-04:00","interval":{"day":1},"duration":{"isAllDay":false,"seconds":600}},
                  {"start":"2025-06-09T15:00:00-04:00","interval":{"day":1},"duration":{"isAllDay":true}}]}
                """
        ).decode(Schedule.self)
        let events = try schedule.events(
            from: newYork.date(2025, 6, 9), to: newYork.date(2025, 6, 9, 23, 59, 59), in: newYork.timeZone)
        #expect(events.map(\.elementIndex) == [0, 1])
        #expect(events.map(\.element.duration) == [.allDay, .seconds(600)])
        #expect(events.map(\.occurrence) == [0, 1])
        #expect(schedule.startDate(in: newYork.timeZone) == (try newYork.date(2025, 6, 9)))
    }

    @Test func theNewestVersionDecidesHowFarBackTheChainIsWalked() throws {
        // v1 (08:00) is effective Jan 10; v2 (18:00) replaces it but is effective earlier, Jan 5.
        var tasks = VersionHistory<CareTask>()
        try tasks.importVersions([
            try daily(hour: 8, uuid: 1, effective: newYork.date(2025, 1, 10)),
            try daily(hour: 18, uuid: 2, effective: newYork.date(2025, 1, 5), after: 1),
        ])
        // The newest version starts after the range start: the walk reaches v1, which owns Jan 10 onwards.
        let long = try tasks.events(
            forTask: "meds", from: newYork.date(2025, 1, 8), to: newYork.date(2025, 1, 12), in: newYork.timeZone)
        #expect(starts(long) == ["1/8 18:00 v2", "1/9 18:00 v2", "1/10 8:00 v1", "1/11 8:00 v1"])
        // It starts before the range start: v1, effective before the range start too, is not reached.
        let short = try tasks.events(
            forTask: "meds", from: newYork.date(2025, 1, 11), to: newYork.date(2025, 1, 12), in: newYork.timeZone)
        #expect(starts(short) == ["1/11 18:00 v2"])
    }

    @Test func aVersionComputesEventsUntilTheNextEffectiveDateEvenPastTheRangeEnd() throws {
        // CareKit ends each window at the effective date of the version after it in effective-date order, and
        // v1's date (Jan 20) lies after the range end (Jan 10): v2 returns events up to Jan 20.
        var tasks = VersionHistory<CareTask>()
        try tasks.importVersions([
            try daily(hour: 8, uuid: 1, effective: newYork.date(2025, 1, 20)),
            try daily(hour: 18, uuid: 2, effective: newYork.date(2025, 1, 5), after: 1),
        ])
        let windows = tasks.eventWindows(
            forTask: "meds", from: try newYork.date(2025, 1, 8), to: try newYork.date(2025, 1, 10), in: newYork.timeZone)
        #expect(windows.map(\.task.uuid) == [testUUID(2)])
        #expect(windows.first?.interval.end == (try newYork.date(2025, 1, 20)))
        let events = try tasks.events(
            forTask: "meds", from: newYork.date(2025, 1, 8), to: newYork.date(2025, 1, 10), in: newYork.timeZone)
        #expect(events.count == 12)
        #expect(starts(events).last == "1/19 18:00 v2")
    }

    @Test func aVersionReachedFromTwoHeadsReturnsItsEventsOnceForEachAsCareKitDoes() throws {
        // v1 (Jan 1) is replaced by v2, effective Jan 20, which v3 replaces from Jan 10. For a range ending
        // Jan 15, v1 is a head (its replacement takes effect after the end) and v3 walks back to it as well.
        var tasks = VersionHistory<CareTask>()
        try tasks.importVersions([
            try daily(hour: 8, uuid: 1, effective: newYork.date(2025, 1, 1)),
            try daily(hour: 12, uuid: 2, effective: newYork.date(2025, 1, 20), after: 1),
            try daily(hour: 16, uuid: 3, effective: newYork.date(2025, 1, 10), after: 2),
        ])
        let events = try tasks.events(
            forTask: "meds", from: newYork.date(2025, 1, 8), to: newYork.date(2025, 1, 15), in: newYork.timeZone)
        #expect(starts(events).prefix(4) == ["1/8 8:00 v1", "1/8 8:00 v1", "1/9 8:00 v1", "1/9 8:00 v1"])
        #expect(starts(events).filter { $0.hasSuffix("v1") }.count == 9)  // Jan 8-14 from v1's chain, Jan 8-9 from v3's
        #expect(starts(events).filter { $0.hasSuffix("v3") } == ["1/10 16:00 v3", "1/11 16:00 v3", "1/12 16:00 v3",
            "1/13 16:00 v3", "1/14 16:00 v3", "1/15 16:00 v3", "1/16 16:00 v3", "1/17 16:00 v3", "1/18 16:00 v3",
            "1/19 16:00 v3"])
    }

    @Test func eventsAreOrderedByStartThenTaskVersionUUIDThenOccurrence() throws {
        // Two versions ten seconds apart each have their own all-day event that day (the newer uuid sorts first).
        let element = ScheduleElement(
            start: try newYork.date(2025, 1, 1), end: nil, interval: .daily, duration: .allDay,
            calendar: newYork.calendar)
        var first = CareTask(
            id: "steps", title: nil, carePlanUUID: nil, schedule: Schedule(composing: [element]), uuid: testUUID(9),
            effectiveDate: try newYork.date(2025, 1, 3), timezone: newYork.timeZone)
        var second = first
        second.uuid = testUUID(2)
        second.previousVersionUUIDs = [testUUID(9)]
        second.effectiveDate = try newYork.date(2025, 1, 3, 0, 0, 10)
        first.nextVersionUUIDs = []
        let events = try VersionHistory([first, second]).events(
            forTask: "steps", from: newYork.date(2025, 1, 3), to: newYork.date(2025, 1, 3, 23, 59, 59),
            in: newYork.timeZone)
        #expect(events.map(\.task.uuid) == [testUUID(2), testUUID(9)])
        #expect(events.map(\.occurrence) == [2, 2])
    }

    @Test func aDeletedPreviousVersionEndsTheWalkBackThroughTheChain() throws {
        // v1, then a tombstone (Jan 5), then v3 (Jan 10) received from a peer that undeleted the task. CareKit's
        // fetch of a previous version skips deleted ones, so v1's events before Jan 10 are not returned.
        var tombstone = try daily(hour: 8, uuid: 2, effective: newYork.date(2025, 1, 5), after: 1)
        tombstone.deletedDate = try newYork.date(2025, 1, 5)
        var tasks = VersionHistory<CareTask>()
        try tasks.importVersions([
            try daily(hour: 8, uuid: 1, effective: newYork.date(2025, 1, 1)), tombstone,
            try daily(hour: 20, uuid: 3, effective: newYork.date(2025, 1, 10), after: 2),
        ])
        let events = try tasks.events(
            forTask: "meds", from: newYork.date(2025, 1, 1), to: newYork.date(2025, 1, 12), in: newYork.timeZone)
        #expect(starts(events) == ["1/10 20:00 v3", "1/11 20:00 v3"])
    }
}
