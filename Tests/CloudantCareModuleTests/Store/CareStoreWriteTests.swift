import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// Versioned writes on a real store, by CareKit's rules: a new version links to its predecessor, versions do not
/// fork, deletion is a version, and outcomes stay with the version they were recorded on.
@Suite("Care store writes")
struct CareStoreWriteTests {
    @Test func theStoreCreatesEveryDeclaredCareIndexWhenItOpens() async throws {
        let fixture = try CareFixture()
        let names = Set(try await fixture.documents.indexes().map(\.name))
        #expect(names.isSuperset(of: ["care-id", "care-uuid", "care-effective-date", "care-task-uuid", "care-event-key"]))
    }

    @Test func eachVersionIsItsOwnDocumentKeyedByItsUUID() async throws {
        let fixture = try CareFixture()
        let plan = fixture.plan(id: "diabetes", uuid: 1)
        try await fixture.care.add([plan])
        var edited = plan
        edited.title = "Diabetes (revised)"
        let updated = try await fixture.care.update([edited])[0]
        let first = try await fixture.documents.document(id: testUUID(1).uuidString)
        let second = try await fixture.documents.document(id: updated.uuid.uuidString)
        #expect(first["entityType"] == "carePlan")
        #expect(first["title"] == "Diabetes")
        #expect(second["title"] == "Diabetes (revised)")
        #expect(updated.previousVersionUUIDs == [testUUID(1)])
        #expect(updated.updatedDate == fixture.clock.now)
    }

    /// Adding an id twice (`p`, a new uuid), or a uuid another object has (`q`, the same uuid).
    @Test(arguments: [(id: "p", uuid: 2), (id: "q", uuid: 1)])
    func addingAnIDOrAUUIDAgainIsADuplicateVersion(id: String, uuid: Int) async throws {
        let fixture = try CareFixture()
        try await fixture.care.add([fixture.plan(id: "p", uuid: 1)])
        let error = await #expect(throws: CloudantError.self) {
            try await fixture.care.add([fixture.plan(id: id, uuid: uuid)])
        }
        #expect(error?.code == .duplicateVersion)
    }

    @Test func aDeletedObjectCannotBeUpdated() async throws {
        let fixture = try CareFixture()
        let plan = try await fixture.care.add([fixture.plan(id: "p", uuid: 1)])[0]
        try await fixture.care.delete([plan])
        let error = await #expect(throws: CloudantError.self) { try await fixture.care.update([plan]) }
        #expect(error?.code == .entityDeleted)
        #expect(try await fixture.care.fetch(CarePlan.self, query: CareQuery(dateInterval: DateInterval(start: fixture.clock.now, duration: 60))).isEmpty)
    }

    @Test func importingAHistoryKeepsItsUUIDsAndIsIdempotent() async throws {
        let fixture = try CareFixture()
        var first = fixture.plan(id: "p", uuid: 1)
        var second = first
        second.uuid = testUUID(2)
        second.previousVersionUUIDs = [testUUID(1)]
        second.title = "Second"
        first.nextVersionUUIDs = [testUUID(2)]
        #expect(try await fixture.care.importVersions([first, second]).count == 2)
        #expect(try await fixture.care.importVersions([first, second]).isEmpty)
        let history = try await fixture.care.history(CarePlan.self, ids: ["p"])
        #expect(history.tips(id: "p").map(\.uuid) == [testUUID(2)])
        #expect(history.version(uuid: testUUID(1))?.nextVersionUUIDs == [testUUID(2)])
    }

    @Test func anOutcomeForAMissingTaskIsOrphaned() async throws {
        let fixture = try CareFixture()
        let error = await #expect(throws: CloudantError.self) {
            try await fixture.care.add([try fixture.outcome(task: testUUID(99), occurrence: 0, uuid: 5)])
        }
        #expect(error?.code == .orphanedOutcome)
    }

    @Test func aBatchOfOutcomesIsCheckedOnceAgainstTheStoreAndStillCatchesDuplicates() async throws {
        let fixture = try CareFixture()
        let task = try fixture.dailyTask(id: "meds", uuid: 1, start: fixture.utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        let batch = try (0..<300).map { try fixture.outcome(task: task.uuid, occurrence: $0, uuid: 10_000 + $0) }
        try await fixture.care.add(batch)
        #expect(try await fixture.care.fetch(Outcome.self).count == 300)
        // One event recorded twice in the next batch: the second item, stored and pending checked alike.
        let again = [
            try fixture.outcome(task: task.uuid, occurrence: 300, uuid: 20_000),
            try fixture.outcome(task: task.uuid, occurrence: 299, uuid: 20_001),
        ]
        let error = await #expect(throws: CloudantError.self) { try await fixture.care.add(again) }
        #expect(error?.code == .duplicateOutcome)
        #expect(error?.context.itemIndex == 1)
    }

    @Test func outcomesAddedInOneBatchRecordTheSameEventsAsOutcomesAddedOneByOne() async throws {
        // Two interleaved elements, one of them ending: the events a batch computes once must be exactly
        // the ones each outcome alone would find.
        let batched = try CareFixture()
        let single = try CareFixture()
        let utc = batched.utc
        let daily = ScheduleElement(
            start: try utc.date(2024, 1, 1, 8), end: try utc.date(2024, 1, 20), interval: .daily, calendar: utc.calendar)
        let everyOtherDay = ScheduleElement(
            start: try utc.date(2024, 1, 1, 20), end: nil, interval: ScheduleInterval(days: 2), calendar: utc.calendar)
        let task = CareTask(
            id: "meds", title: "meds", carePlanUUID: nil, schedule: Schedule(composing: [everyOtherDay, daily]),
            uuid: testUUID(1), timezone: utc.timeZone)
        try await batched.care.add([task])
        try await single.care.add([task])
        let occurrences = [41, 0, 7, 19, 20, 3, 33]
        let outcomes = try occurrences.enumerated().map { index, occurrence in
            try batched.outcome(task: task.uuid, occurrence: occurrence, uuid: 100 + index)
        }
        try await batched.care.add(outcomes)
        for outcome in outcomes { try await single.care.add([outcome]) }
        for outcome in outcomes {
            let id = outcome.uuid.uuidString
            let fromBatch = try await batched.documents.document(id: id)
            let alone = try await single.documents.document(id: id)
            #expect(fromBatch["startDate"] == alone["startDate"], "occurrence \(outcome.taskOccurrenceIndex)")
            #expect(fromBatch["endDate"] == alone["endDate"])
            #expect(fromBatch["careEventKey"] == alone["careEventKey"])
            let event = try task.schedule.event(forOccurrence: outcome.taskOccurrenceIndex, in: utc.timeZone)
            #expect(fromBatch["startDate"]?.stringValue == event.flatMap { ISO8601Timestamp.string(from: $0.start) })
        }
    }

    @Test func aSecondOutcomeForOneEventIsADuplicateOutcome() async throws {
        let fixture = try CareFixture()
        let task = try fixture.dailyTask(id: "meds", uuid: 1, start: fixture.utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 2, uuid: 5)])
        let error = await #expect(throws: CloudantError.self) {
            try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 2, uuid: 6)])
        }
        #expect(error?.code == .duplicateOutcome)
    }

    @Test func aTaskUpdateThatWouldHideAnOutcomeIsRejectedAndALaterOneSucceeds() async throws {
        // The "meds" example: the second version takes over from its effective date.
        let fixture = try CareFixture()
        let utc = fixture.utc
        let task = try fixture.dailyTask(id: "meds", uuid: 1, start: utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 9, uuid: 5)])  // Jan 10 08:00
        var evening = task
        evening.schedule = try Schedule.dailyAtTime(
            hour: 20, minutes: 0, start: utc.date(2024, 1, 10), end: nil, text: nil, calendar: utc.calendar)
        evening.effectiveDate = try utc.date(2024, 1, 10)
        let error = await #expect(throws: CloudantError.self) { try await fixture.care.update([evening]) }
        #expect(error?.code == .updateWouldHideOutcomes)
        evening.effectiveDate = try utc.date(2024, 1, 11)
        let stored = try await fixture.care.update([evening])
        #expect(stored[0].previousVersionUUIDs == [task.uuid])
    }

    @Test func outcomesStoreTheirEventStartEndAndLengthClassKey() async throws {
        let fixture = try CareFixture()
        let task = try fixture.dailyTask(id: "meds", uuid: 1, start: fixture.utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 2, uuid: 5)])
        let document = try await fixture.documents.document(id: testUUID(5).uuidString)
        #expect(document["startDate"] == "2024-01-03T08:00:00.000Z")
        #expect(document["endDate"] == "2024-01-03T09:00:00.000Z")
        #expect(document["careEventKey"] == "a2024-01-03T08:00:00.000Z")  // "a": at most an hour long
    }
}
