import CloudantCare
import Foundation
import Testing

/// The CareKit integration of OTFCloudantStore's README: CareKit's names on the drop-in store.
@Suite("OTFCloudantStore's README: CareKit names")
struct CareSnippetTests {
    @Test func careKitNamesAddFetchUpdateAndDeleteSingularAndPlural() async throws {
        let folder = SeedFolder()
        let findings = try await CareSnippets.run(try folder.store(), now: Date())
        #expect(findings.patients == ["Anna"])
        #expect(findings.plans == ["Hypertension", "Wellness check-ins"])
        #expect(findings.tasks == ["meds", "walk"])
        #expect(findings.outcomeValues == [118])
        #expect(findings.updatedTitle == "Wellness check-ins")
        #expect(findings.deletedPlanGone)
        #expect(findings.errors["missingPatient"]?.hasPrefix("fetchFailed: notFound") == true)
        #expect(findings.errors["duplicatePatient"]?.hasPrefix("addFailed: ") == true)
    }

    @Test func fetchHonoursLimitAndOffsetInsteadOfTheOriginalsSilentThirty() async throws {
        let folder = SeedFolder()
        let findings = try await CareSnippets.run(try folder.store(), now: Date())
        #expect(findings.pagedTaskIDs == [["walk"], ["meds"]] || findings.pagedTaskIDs == [["meds"], ["walk"]])
        #expect(Set(findings.pagedTaskIDs.flatMap { $0 }) == ["meds", "walk"])
    }

    @Test func outcomesComeByCreationDateOnceEachWhateverTheirEventDay() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        let findings = try await CareSnippets.run(store, now: Date())
        // One outcome, updated once: its newest version only.
        #expect(findings.outcomesByCreation.count == 1)

        // An outcome recorded today for an event three days ago comes by creation date, not by event date.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let today = calendar.startOfDay(for: Date())
        let early = try #require(calendar.date(byAdding: .day, value: -3, to: today))
        let task = CareTask(
            id: "journal", title: "Journal", carePlanUUID: nil,
            schedule: try .dailyAtTime(hour: 9, minutes: 0, start: early, end: nil, text: nil, calendar: calendar),
            timezone: calendar.timeZone)
        let stored = try await store.addTask(task)
        let late = try await store.addOutcome(Outcome(taskUUID: stored.uuid, taskOccurrenceIndex: 0, values: [OutcomeValue(.text("caught up"))]))
        // The day it was recorded, from its own creation date: a run that crosses midnight between `today` above and
        // this write still asks for the right day.
        let recordedDay = calendar.startOfDay(for: try #require(late.createdDate))
        var byCreation = CareQuery()
        byCreation.createdDateInterval = DateInterval(start: recordedDay, duration: 86_399)
        byCreation.taskIDs = ["journal"]
        #expect(try await store.fetchOutcomes(query: byCreation).map(\.uuid) == [late.uuid])
        var byEvent = CareQuery(for: recordedDay, calendar: calendar)
        byEvent.taskIDs = ["journal"]
        #expect(try await store.fetchOutcomes(query: byEvent).isEmpty)
        var yesterday = CareQuery()
        yesterday.createdDateInterval = DateInterval(start: recordedDay - 86_400, duration: 86_399)
        yesterday.taskIDs = ["journal"]
        #expect(try await store.fetchOutcomes(query: yesterday).isEmpty)

        // Deleted, it no longer comes by creation date either.
        _ = try await store.deleteOutcome(late)
        #expect(try await store.fetchOutcomes(query: byCreation).isEmpty)
    }

    @Test func careCallsCreateTheirIndexesOnAStoreOpenedWithoutThePlugin() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        _ = try await store.fetchPatients()
        let names = try await store.documentStore.indexes().map(\.name)
        #expect(names.contains(CareIndexes.byID.name) && names.contains(CareIndexes.byEventKey.name))
        #expect(names.contains(CareIndexes.byCreatedDate.name))
    }
}
