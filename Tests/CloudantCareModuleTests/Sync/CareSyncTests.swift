import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// CareKit's sync model: revision records, merging, conflicts and policies, the peer protocol, and care documents
/// that travel by plain CouchDB replication.
@Suite("Care sync")
struct CareSyncTests {
    private func pair() throws -> (phone: CareFixture, watch: CareFixture) {
        (try CareFixture(name: "phone", uuidBase: 1000), try CareFixture(name: "watch", uuidBase: 5000))
    }

    private func transport(to peer: CareStore) -> CarePeerTransport {
        { message in
            // Through JSON, as a real transport would carry it.
            let data = try JSONEncoder().encode(message)
            return try await peer.respond(to: try JSONDecoder().decode(CarePeerMessage.self, from: data))
        }
    }

    private func ids<Entity: CareStorable>(_ care: CareStore, _ type: Entity.Type) async throws -> Set<UUID> {
        Set(try await care.allVersions(type).versions.map(\.uuid))
    }

    /// A plan "p" added on the phone and synchronised with `policy`, then retitled on each device ("phone",
    /// "watch") before they meet again: one concurrent edit each.
    private func planEditedOnBothDevices(
        syncedWith policy: CareConflictPolicy
    ) async throws -> (phone: CareFixture, watch: CareFixture) {
        let (phone, watch) = try pair()
        try await phone.care.add([phone.plan(id: "p", uuid: 1)])
        try await phone.care.synchronize(with: transport(to: watch.care), policy: policy)
        for (side, title) in [(phone, "phone"), (watch, "watch")] {
            var plan = try await side.care.fetch(CarePlan.self, query: CareQuery(id: "p"))[0]
            plan.title = title
            try await side.care.update([plan])
        }
        return (phone, watch)
    }

    @Test func peerSyncCopiesEachSidesVersionsToTheOther() async throws {
        let (phone, watch) = try pair()
        try await phone.care.add([phone.plan(id: "diabetes", uuid: 1)])
        let task = try watch.dailyTask(id: "meds", uuid: 2, start: watch.utc.date(2024, 1, 1, 8))
        try await watch.care.add([task])
        try await watch.care.add([try watch.outcome(task: task.uuid, occurrence: 0, uuid: 3)])
        try await phone.care.synchronize(with: transport(to: watch.care), policy: .newest)
        for side in [phone, watch] {
            #expect(try await ids(side.care, CarePlan.self) == [testUUID(1)])
            #expect(try await ids(side.care, CareTask.self) == [testUUID(2)])
            #expect(try await ids(side.care, Outcome.self) == [testUUID(3)])
        }
        // The received outcome carries its event dates, so it is found by event date on the phone too.
        let day = CareQuery(for: try phone.utc.date(2024, 1, 1), calendar: phone.utc.calendar)
        #expect(try await phone.care.fetch(Outcome.self, query: day).map(\.uuid) == [testUUID(3)])
    }

    @Test func aPeerThatSendsNothingDeletesNothing() async throws {
        // The original watch peer deleted every local document the peer had not sent.
        let (phone, watch) = try pair()
        try await phone.care.add([phone.plan(id: "a", uuid: 1), phone.plan(id: "b", uuid: 2)])
        try await phone.care.synchronize(with: transport(to: watch.care), policy: .newest)
        // A push that carries nothing, and a reply that carries nothing, leave everything in place.
        _ = try await phone.care.respond(
            to: .revisionPush(CarePeerPayload(knowledgeVector: KnowledgeVector(), revisions: [])))
        try await phone.care.synchronize(
            with: { _ in .revisionReply(CarePeerPayload(knowledgeVector: KnowledgeVector(), revisions: [])) },
            policy: .newest)
        #expect(try await ids(phone.care, CarePlan.self) == [testUUID(1), testUUID(2)])
    }

    @Test func aSecondSyncSendsOnlyWhatChanged() async throws {
        let (phone, watch) = try pair()
        try await phone.care.add([phone.plan(id: "a", uuid: 1)])
        try await phone.care.synchronize(with: transport(to: watch.care), policy: .newest)
        try await phone.care.add([phone.plan(id: "b", uuid: 2)])
        let records = try await phone.care.revisions(since: try await watch.care.knowledge())
        #expect(records.flatMap(\.entities).map(\.uuid) == [testUUID(2)])
    }

    @Test func mergingRecordsIsIdempotentCommutativeAndAssociative() async throws {
        let source = try CareFixture(name: "source")
        let task = try source.dailyTask(id: "meds", uuid: 1, start: source.utc.date(2024, 1, 1, 8))
        let plan = source.plan(id: "p", uuid: 2)
        var next = plan
        next.uuid = testUUID(3)
        next.previousVersionUUIDs = [plan.uuid]
        let outcome = try source.outcome(task: task.uuid, occurrence: 1, uuid: 4)
        let x = RevisionRecord(entities: [.task(task)], knowledgeVector: KnowledgeVector([testUUID(90): 1]))
        let y = RevisionRecord(entities: [.carePlan(plan)], knowledgeVector: KnowledgeVector([testUUID(91): 1]))
        let z = RevisionRecord(entities: [.carePlan(next), .outcome(outcome)], knowledgeVector: KnowledgeVector([testUUID(91): 2]))
        func state(_ batches: [[RevisionRecord]]) async throws -> [String] {
            let target = try CareFixture(name: "target")
            for batch in batches { try await target.care.merge(batch) }
            let history = try await target.care.allVersions(CarePlan.self)
            var summary = history.versions.map { "\($0.uuid) next \($0.nextVersionUUIDs)" }.sorted()
            summary += try await ids(target.care, Outcome.self).map(\.uuidString)
            summary.append(try await target.care.knowledge().description.replacingOccurrences(
                of: try await target.care.processID().uuidString, with: "self"))
            return summary
        }
        let once = try await state([[x, y, z]])
        #expect(try await state([[x, y, z], [x, y, z]]) == once)  // idempotent
        #expect(try await state([[z], [y], [x]]) == once)  // commutative
        #expect(try await state([[x, y], [z]]) == state([[x], [y, z]]))  // associative
    }

    @Test func concurrentUpdatesOnTwoDevicesAreDetectedAndKeepDeviceKeepsTheLocalVersion() async throws {
        let (phone, watch) = try await planEditedOnBothDevices(syncedWith: .keepLocal)
        let resolved = try await phone.care.synchronize(with: transport(to: watch.care), policy: .keepLocal)
        #expect(resolved.count == 1)
        for side in [phone, watch] {
            #expect(try await side.care.conflicts(CarePlan.self).isEmpty)
            let tips = try await side.care.history(CarePlan.self, ids: ["p"]).tips(id: "p")
            #expect(tips.map(\.title) == ["phone"])
            #expect(tips.first?.previousVersionUUIDs.count == 2)
        }
    }

    @Test func keepRemoteAndCustomResolversPickTheirVersion() async throws {
        for (policy, expected) in [
            (CareConflictPolicy.keepRemote, "watch"),
            (CareConflictPolicy.custom { conflict in
                #expect(conflict.kindName == CarePlan.careKindName)
                var pick = conflict.local[0]
                if case .carePlan(var plan) = pick {
                    plan.title = "merged"
                    pick = .carePlan(plan)
                }
                return pick
            }, "merged"),
        ] {
            let (phone, watch) = try await planEditedOnBothDevices(syncedWith: policy)
            try await phone.care.synchronize(with: transport(to: watch.care), policy: policy)
            let tips = try await watch.care.history(CarePlan.self, ids: ["p"]).tips(id: "p")
            #expect(tips.map(\.title) == [expected])
        }
    }

    @Test func twoDevicesResolvingAlikeWriteTheSameMergeVersion() async throws {
        let (phone, watch) = try await planEditedOnBothDevices(syncedWith: .newest)
        // Each side learns the other's version, resolves on its own, then they sync.
        try await phone.care.merge(try await watch.care.revisions(since: KnowledgeVector()))
        try await watch.care.merge(try await phone.care.revisions(since: KnowledgeVector()))
        let fromPhone = try await phone.care.resolveConflicts(policy: .newest)
        let fromWatch = try await watch.care.resolveConflicts(policy: .newest)
        #expect(fromPhone.map(\.uuid) == fromWatch.map(\.uuid))
        try await phone.care.synchronize(with: transport(to: watch.care), policy: .newest)
        #expect(try await phone.care.conflicts(CarePlan.self).isEmpty)
        #expect(try await watch.care.conflicts(CarePlan.self).isEmpty)
    }

    @Test func careDocumentsReplicatedLikeCouchDBAreDetectedAndResolvedByTheSamePolicies() async throws {
        let (phone, watch) = try pair()
        try await phone.care.add([phone.plan(id: "p", uuid: 1)])
        try await replicate(from: phone.documents, to: watch.documents)
        var onPhone = try await phone.care.fetch(CarePlan.self, query: CareQuery(id: "p"))[0]
        onPhone.title = "phone"
        try await phone.care.update([onPhone])
        var onWatch = try await watch.care.fetch(CarePlan.self, query: CareQuery(id: "p"))[0]
        onWatch.title = "watch"
        fixtureAdvance(watch)
        try await watch.care.update([onWatch])
        try await replicate(from: watch.documents, to: phone.documents)
        // No CouchDB-level conflict (versions are separate documents), but two care tips.
        #expect(try await phone.care.conflicts(CarePlan.self) == ["p"])
        try await phone.care.resolveConflicts(policy: .keepRemote)
        let tips = try await phone.care.history(CarePlan.self, ids: ["p"]).tips(id: "p")
        #expect(tips.map(\.title) == ["watch"])
        try await replicate(from: phone.documents, to: watch.documents)
        #expect(try await watch.care.conflicts(CarePlan.self).isEmpty)
        #expect(try await watch.care.history(CarePlan.self, ids: ["p"]).tips(id: "p").map(\.title) == ["watch"])
    }

    private func fixtureAdvance(_ fixture: CareFixture) {
        fixture.clock.set(fixture.clock.now.addingTimeInterval(60))
    }

    /// CouchDB-style one-shot replication: every document's winning revision, written with `new_edits: false`.
    private func replicate(from source: DocumentStore, to target: DocumentStore) async throws {
        let changes = try await source.changes(ChangesOptions(includeDocs: true))
        let documents = changes.results.compactMap(\.doc).filter { !($0["_id"]?.stringValue ?? "").hasPrefix("_design/") }
        let failures = try await target.bulkDocs(documents.map { .object($0) }, newEdits: false)
        #expect(failures.isEmpty)
    }
}
