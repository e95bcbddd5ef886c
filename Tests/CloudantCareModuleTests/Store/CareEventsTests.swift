import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// Events through the store: per-version windows and outcomes joined by (task version, occurrence).
@Suite("Care store events")
struct CareEventsTests {
    @Test func eventsComeFromTheVersionInEffectWithTheirOutcomes() async throws {
        // A later version takes over from its effective date: Jan 1–10 from v1 at 08:00, from Jan 11 v2 at 20:00; outcomes stay on v1.
        let fixture = try CareFixture()
        let utc = fixture.utc
        let task = try fixture.dailyTask(id: "meds", uuid: 1, start: utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 9, uuid: 5)])
        var evening = task
        evening.schedule = try Schedule.dailyAtTime(
            hour: 20, minutes: 0, start: utc.date(2024, 1, 11), end: nil, text: nil, calendar: utc.calendar)
        evening.effectiveDate = try utc.date(2024, 1, 11)
        let v2 = try await fixture.care.update([evening])[0]
        let events = try await fixture.care.events(
            forTask: "meds", from: utc.date(2024, 1, 10), to: utc.date(2024, 1, 12))
        #expect(events.map(\.scheduleEvent.start) == [try utc.date(2024, 1, 10, 8), try utc.date(2024, 1, 11, 20)])
        #expect(events.map(\.task.uuid) == [task.uuid, v2.uuid])
        #expect(events[0].outcome?.uuid == testUUID(5))
        #expect(events[1].outcome == nil)
    }

    @Test func aHealthKitLinkedTaskHasEventsAndOutcomesLikeAnyTask() async throws {
        let fixture = try CareFixture()
        let utc = fixture.utc
        let linked = HealthKitLinkedTask(
            task: try fixture.dailyTask(id: "steps", uuid: 1, start: utc.date(2024, 1, 1, 8)),
            healthKitLinkage: HealthKitLinkage(
                quantityIdentifier: "HKQuantityTypeIdentifierStepCount", quantityType: .cumulative, unitString: "count"))
        try await fixture.care.add([linked])
        try await fixture.care.add([try fixture.outcome(task: linked.uuid, occurrence: 1, uuid: 5)])
        let events = try await fixture.care.events(
            forHealthKitLinkedTask: "steps", from: utc.date(2024, 1, 1), to: utc.date(2024, 1, 4))
        #expect(events.map(\.scheduleEvent.occurrence) == [0, 1, 2])
        #expect(events.map(\.task.healthKitLinkage.quantityIdentifier) == Array(repeating: "HKQuantityTypeIdentifierStepCount", count: 3))
        #expect(events[1].outcome?.uuid == testUUID(5))
        #expect(try await fixture.care.events(forTask: "steps", from: utc.date(2024, 1, 1), to: utc.date(2024, 1, 4)).isEmpty)
    }

    @Test func eventsAreComputedInTheZoneTheCallNames() async throws {
        let fixture = try CareFixture()
        let paris = try Zone.paris()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: paris.date(2024, 3, 29, 8), end: nil, text: nil, calendar: paris.calendar)
        try await fixture.care.add([
            CareTask(id: "meds", title: nil, carePlanUUID: nil, schedule: schedule, uuid: testUUID(1))
        ])
        let events = try await fixture.care.events(
            forTask: "meds", from: paris.date(2024, 3, 30), to: paris.date(2024, 4, 1), in: paris.timeZone)
        // Across the spring-forward night the wall-clock time stays 08:00 in Paris.
        #expect(events.map { paris.wallClock($0.scheduleEvent.start).hour } == [8, 8])
    }
}
