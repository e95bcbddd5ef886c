import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// CareKit's query fields, run on the plugin's indexes.
@Suite("Care queries")
struct CareQueryTests {
    /// Two plans (one for each patient), two tasks on the first plan, one on the second.
    private func seeded() async throws -> CareFixture {
        let fixture = try CareFixture()
        var jane = Patient(id: "jane", name: PersonNameComponents(), uuid: testUUID(1), effectiveDate: fixture.clock.now)
        jane.remoteID = "remote-jane"
        try await fixture.care.add([jane])
        var diabetes = fixture.plan(id: "diabetes", uuid: 10, patientUUID: jane.uuid)
        diabetes.groupIdentifier = "chronic"
        diabetes.tags = ["a", "b"]
        var asthma = fixture.plan(id: "asthma", uuid: 11)
        asthma.tags = ["c"]
        try await fixture.care.add([diabetes, asthma])
        let start = try fixture.utc.date(2024, 1, 1, 8)
        try await fixture.care.add([
            try fixture.dailyTask(id: "meds", uuid: 20, start: start, carePlanUUID: diabetes.uuid),
            try fixture.dailyTask(id: "walk", uuid: 21, start: start, carePlanUUID: diabetes.uuid),
            try fixture.dailyTask(id: "inhaler", uuid: 22, start: start, carePlanUUID: asthma.uuid),
        ])
        return fixture
    }

    /// The ids of the `kind` versions that a query with only the fields `set` sets matches.
    private func ids<Entity: CareStorable>(
        of kind: Entity.Type, in fixture: CareFixture, where set: (inout CareQuery) -> Void
    ) async throws -> [String] {
        var query = CareQuery()
        set(&query)
        return try await fixture.care.fetch(kind, query: query).map(\.id)
    }

    @Test func idsUUIDsRemoteIDsGroupsAndTagsFilter() async throws {
        let fixture = try await seeded()
        #expect(try await ids(of: CarePlan.self, in: fixture) { $0.ids = ["asthma"] } == ["asthma"])
        #expect(try await ids(of: CarePlan.self, in: fixture) { $0.uuids = [testUUID(10)] } == ["diabetes"])
        #expect(try await ids(of: CarePlan.self, in: fixture) { $0.groupIdentifiers = [nil] } == ["asthma"])
        #expect(try await ids(of: CarePlan.self, in: fixture) { $0.tags = ["b", "z"] } == ["diabetes"])
        #expect(try await ids(of: Patient.self, in: fixture) { $0.remoteIDs = ["remote-jane"] } == ["jane"])
    }

    @Test func relationsMatchByIDUUIDAndRemoteID() async throws {
        let fixture = try await seeded()
        let byPlanID = try await ids(of: CareTask.self, in: fixture) {
            $0.carePlanIDs = ["diabetes"]
            $0.sort = [CareSort(.title)]
        }
        #expect(byPlanID == ["meds", "walk"])
        #expect(try await ids(of: CareTask.self, in: fixture) { $0.carePlanUUIDs = [testUUID(11)] } == ["inhaler"])
        #expect(try await ids(of: CarePlan.self, in: fixture) { $0.patientRemoteIDs = ["remote-jane"] } == ["diabetes"])
    }

    @Test func aRelationTheKindLacksIsAnInvalidValue() async throws {
        let fixture = try await seeded()
        var query = CareQuery()
        query.taskIDs = ["meds"]
        let error = await #expect(throws: CloudantError.self) { try await fixture.care.fetch(CarePlan.self, query: query) }
        #expect(error?.code == .invalidInput)
    }

    @Test func sortLimitAndOffsetApplyToTheVersionsInEffect() async throws {
        let fixture = try await seeded()
        var query = CareQuery(dateInterval: DateInterval(start: try fixture.utc.date(2024, 1, 2), duration: 86_399))
        query.sort = [CareSort(.title, ascending: false)]
        query.offset = 1
        query.limit = 1
        #expect(try await fixture.care.fetch(CareTask.self, query: query).map(\.id) == ["meds"])
    }

    @Test func aDateIntervalReturnsTheVersionInEffectAndNoIntervalReturnsEveryVersion() async throws {
        let fixture = try await seeded()
        let utc = fixture.utc
        var plan = try await fixture.care.fetch(CarePlan.self, query: CareQuery(id: "asthma"))[0]
        plan.title = "Asthma v2"
        plan.effectiveDate = try utc.date(2024, 2, 1)
        fixture.clock.set(try utc.date(2024, 1, 15))
        try await fixture.care.update([plan])
        let january = CareQuery(for: try utc.date(2024, 1, 20), calendar: utc.calendar)
        let february = CareQuery(for: try utc.date(2024, 2, 2), calendar: utc.calendar)
        var queryJan = january
        queryJan.ids = ["asthma"]
        var queryFeb = february
        queryFeb.ids = ["asthma"]
        #expect(try await fixture.care.fetch(CarePlan.self, query: queryJan).map(\.title) == ["Asthma"])
        #expect(try await fixture.care.fetch(CarePlan.self, query: queryFeb).map(\.title) == ["Asthma v2"])
        #expect(try await fixture.care.fetch(CarePlan.self, query: CareQuery(id: "asthma")).count == 2)
    }

    @Test func outcomesAreFilteredByEventDateNotCreationDate() async throws {
        let fixture = try await seeded()
        let utc = fixture.utc
        // Recorded on Jan 20 for the events of Jan 3 and Jan 4.
        fixture.clock.set(try utc.date(2024, 1, 20))
        try await fixture.care.add([
            try fixture.outcome(task: testUUID(20), occurrence: 2, uuid: 30),
            try fixture.outcome(task: testUUID(20), occurrence: 3, uuid: 31),
        ])
        let jan3 = CareQuery(for: try utc.date(2024, 1, 3), calendar: utc.calendar)
        #expect(try await fixture.care.fetch(Outcome.self, query: jan3).map(\.uuid) == [testUUID(30)])
        let jan20 = CareQuery(for: try utc.date(2024, 1, 20), calendar: utc.calendar)
        #expect(try await fixture.care.fetch(Outcome.self, query: jan20).isEmpty)
        var byTask = CareQuery()
        byTask.taskIDs = ["meds"]
        #expect(try await fixture.care.fetch(Outcome.self, query: byTask).count == 2)
    }

    @Test func anEventQueryReturnsOnlyAnOutcomesNewestLiveVersion() async throws {
        // CareKit #558/#565: a date query returned several versions of one outcome.
        let fixture = try await seeded()
        let utc = fixture.utc
        let first = try await fixture.care.add([try fixture.outcome(task: testUUID(20), occurrence: 2, uuid: 30)])[0]
        var edited = first
        edited.values = [OutcomeValue(.integer(5), createdDate: fixture.clock.now)]
        let second = try await fixture.care.update([edited])[0]
        let jan3 = CareQuery(for: try utc.date(2024, 1, 3), calendar: utc.calendar)
        #expect(try await fixture.care.fetch(Outcome.self, query: jan3).map(\.uuid) == [second.uuid])
        try await fixture.care.delete([second])
        #expect(try await fixture.care.fetch(Outcome.self, query: jan3).isEmpty)
    }

    @Test func everyQueryShapeRunsOnACareIndexNotAllDocs() async throws {
        let fixture = try await seeded()
        let utc = fixture.utc
        var byID = CareQuery()
        byID.ids = ["meds"]
        var byUUID = CareQuery()
        byUUID.uuids = [testUUID(20)]
        var byPlan = CareQuery()
        byPlan.carePlanUUIDs = [testUUID(10)]
        var byTag = CareQuery()
        byTag.tags = ["a"]
        let day = CareQuery(for: try utc.date(2024, 1, 3), calendar: utc.calendar)
        let requests = [
            try await fixture.care.findRequests(CareTask.self, query: byID),
            try await fixture.care.findRequests(CareTask.self, query: byUUID),
            try await fixture.care.findRequests(CareTask.self, query: byPlan),
            try await fixture.care.findRequests(CareTask.self, query: day),
            try await fixture.care.findRequests(Outcome.self, query: day),
            try await fixture.care.findRequests(CarePlan.self, query: byTag),
        ]
        for request in requests.joined() {
            let plan = try await fixture.documents.explain(request)
            let name = plan["index"]?["name"]?.stringValue
            #expect(name?.hasPrefix("care-") == true, "\(request.selector.json) used \(name ?? "nil")")
        }
    }

    @Test func outcomesByEventDateScanTwoSidedRangesOnTheEventKeyIndex() async throws {
        let fixture = try await seeded()
        var day = CareQuery(for: try fixture.utc.date(2024, 1, 3), calendar: fixture.utc.calendar)
        day.taskIDs = ["meds"]  // a relation must not pull the query onto the task index
        let requests = try await fixture.care.findRequests(Outcome.self, query: day)
        #expect(requests.count > 1)
        for request in requests {
            let plan = try await fixture.documents.explain(request)
            #expect(plan["index"]?["name"]?.stringValue == "care-event-key")
            // CouchDB's view keys: a lower and an upper event key, not the open end (`<MAX>`) alone.
            let start = plan["mrargs"]?["start_key"]?.arrayValue ?? []
            let end = plan["mrargs"]?["end_key"]?.arrayValue ?? []
            #expect(start.count == 1 && end.count == 2 && end.last == "<MAX>", "\(plan["mrargs"]?.jsonString() ?? "")")
        }
    }

    @Test func outcomesOfEveryEventLengthAreFoundByEventDate() async throws {
        let fixture = try await seeded()
        let utc = fixture.utc
        let jan1 = try utc.date(2024, 1, 1)
        var lengths: [(String, Double)] = [("minute", 60), ("hour", 3_600), ("all-day", 86_399), ("week", 7 * 86_400)]
        lengths += [("month", 31 * 86_400), ("year", 366 * 86_400), ("two-years", 2 * 366 * 86_400)]
        for (offset, (name, seconds)) in lengths.enumerated() {
            let element = ScheduleElement(
                start: jan1, end: nil, interval: ScheduleInterval(days: 800), duration: .seconds(seconds),
                calendar: utc.calendar)
            let task = CareTask(
                id: "long-\(name)", title: name, carePlanUUID: nil, schedule: Schedule(composing: [element]),
                uuid: testUUID(500 + offset), effectiveDate: jan1)
            try await fixture.care.add([task])
            try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 0, uuid: 600 + offset)])
        }
        // Each event started on Jan 1 and overlaps exactly the days before its end.
        for (offset, (name, seconds)) in lengths.enumerated() {
            let lastDay = jan1.addingTimeInterval(seconds - 1)
            let onLastDay = try await fixture.care.fetch(Outcome.self, query: CareQuery(for: lastDay, calendar: utc.calendar))
            #expect(onLastDay.contains { $0.uuid == testUUID(600 + offset) }, "\(name) missing on its last day")
            let after = jan1.addingTimeInterval(seconds + 86_400)
            let dayAfter = try await fixture.care.fetch(Outcome.self, query: CareQuery(for: after, calendar: utc.calendar))
            #expect(!dayAfter.contains { $0.uuid == testUUID(600 + offset) }, "\(name) found after its end")
        }
    }
}
