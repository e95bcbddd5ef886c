import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// Importing CareKit histories through the store: one transaction, nothing written when the history is broken.
@Suite("Care store history import")
struct CareStoreImportTests {
    /// Version `uuid` of task "meds" at `hour`, following `previous`, effective on January `day`.
    private func meds(_ fixture: CareFixture, _ uuid: Int, hour: Int, day: Int, after previous: [Int] = []) throws
        -> CareTask
    {
        let schedule = try Schedule.dailyAtTime(
            hour: hour, minutes: 0, start: fixture.utc.date(2024, 1, 1), end: nil, text: nil,
            calendar: fixture.utc.calendar)
        var task = CareTask(
            id: "meds", title: "\(hour):00", carePlanUUID: nil, schedule: schedule, uuid: testUUID(uuid),
            effectiveDate: try fixture.utc.date(2024, 1, day), timezone: fixture.utc.timeZone)
        task.previousVersionUUIDs = previous.map(testUUID)
        task.createdDate = try fixture.utc.date(2023, 12, 1)
        task.updatedDate = try fixture.utc.date(2024, 1, day)
        return task
    }

    private func documentCount(_ fixture: CareFixture) async throws -> Int {
        try await fixture.documents.info().documentCount
    }

    @Test func aHistoryInAnyOrderIsStoredExactlyAndEachVersionIsInEffectFromItsDate() async throws {
        let fixture = try CareFixture()
        let history = [
            try meds(fixture, 3, hour: 20, day: 20, after: [2]), try meds(fixture, 1, hour: 8, day: 1),
            try meds(fixture, 2, hour: 12, day: 10, after: [1]),
        ]
        let stored = try await fixture.care.importVersions(history)
        #expect(stored.map(\.uuid) == [testUUID(3), testUUID(1), testUUID(2)])
        for version in history {
            let inEffect = try await fixture.care.fetchInEffect(CareTask.self, at: version.effectiveDate)
            #expect(inEffect.map(\.uuid) == [version.uuid])
            #expect(inEffect.first?.updatedDate == version.updatedDate)
            #expect(inEffect.first?.createdDate == version.createdDate)
            #expect(inEffect.first?.previousVersionUUIDs == version.previousVersionUUIDs)
        }
    }

    @Test func aBrokenHistoryWritesNothingAtAll() async throws {
        let fixture = try CareFixture()
        try await fixture.care.add([fixture.plan(id: "plan", uuid: 50)])
        let before = try await documentCount(fixture)
        let broken = [try meds(fixture, 1, hour: 8, day: 1), try meds(fixture, 3, hour: 20, day: 20, after: [2])]
        let error = await #expect(throws: CloudantError.self) { try await fixture.care.importVersions(broken) }
        #expect(error?.code == .brokenVersionChain)
        #expect(error?.versionChainError?.uuid == testUUID(3))
        #expect(try await documentCount(fixture) == before)
        #expect(try await fixture.care.history(CareTask.self, ids: ["meds"]).versions.isEmpty)
    }

    @Test func addWithAHistoryIsOneTransactionSoAFailingAddStoresNoVersion() async throws {
        let fixture = try CareFixture()
        try await fixture.care.add([fixture.plan(id: "taken", uuid: 50)])
        let before = try await documentCount(fixture)
        let history = [try meds(fixture, 1, hour: 8, day: 1), try meds(fixture, 2, hour: 12, day: 10, after: [1])]
        let error = await #expect(throws: CloudantError.self) {
            try await fixture.care.add([fixture.plan(id: "taken", uuid: 51)], importing: [])
        }
        #expect(error?.code == .duplicateVersion)
        let mixed = await #expect(throws: CloudantError.self) {
            let added = try fixture.dailyTask(id: "meds", uuid: 60, start: fixture.utc.date(2024, 1, 1))
            try await fixture.care.add([added], importing: history)
        }
        // The added task's id is the imported history's: counted after the two imported versions.
        #expect(mixed?.code == .duplicateVersion)
        #expect(mixed?.context.itemIndex == 2)
        #expect(try await documentCount(fixture) == before)
    }

    @Test func anUpdateInTheSameCallFollowsTheImportedVersions() async throws {
        let fixture = try CareFixture()
        let history = [try meds(fixture, 2, hour: 12, day: 10, after: [1]), try meds(fixture, 1, hour: 8, day: 1)]
        var evening = try meds(fixture, 0, hour: 20, day: 20)
        evening.previousVersionUUIDs = []
        let updated = try await fixture.care.update([evening], importing: history)
        #expect(updated.first?.previousVersionUUIDs == [testUUID(2)])
        let tasks = try await fixture.care.history(CareTask.self, ids: ["meds"])
        #expect(tasks.versions.count == 3)
        #expect(tasks.tips(id: "meds").map(\.uuid) == updated.map(\.uuid))
    }

    @Test func anImportedVersionWhoseUUIDAnotherKindUsesIsADuplicateVersion() async throws {
        let fixture = try CareFixture()
        try await fixture.care.add([fixture.plan(id: "plan", uuid: 1)])
        let error = await #expect(throws: CloudantError.self) {
            try await fixture.care.importVersions([try meds(fixture, 1, hour: 8, day: 1)])
        }
        #expect(error?.code == .duplicateVersion)
        #expect(error?.context.itemIndex == 0)
        #expect(try await fixture.care.history(CareTask.self, ids: ["meds"]).versions.isEmpty)
    }
}
