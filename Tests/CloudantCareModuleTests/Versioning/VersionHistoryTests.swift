import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// CareKit's version history: a chain of versions by effective date, each linked to the one it replaces.
@Suite("Version history")
struct VersionHistoryTests {
    private let utc: Zone
    init() throws { utc = try Zone.utc() }

    /// A version of the one plan, following the version `previous` names (a root when `nil`).
    private func plan(_ title: String, uuid: Int, effective day: Int, after previous: Int? = nil) throws -> CarePlan {
        var plan = CarePlan(
            id: "plan", title: title, patientUUID: nil, uuid: testUUID(uuid),
            effectiveDate: try utc.date(2024, 1, day), timezone: utc.timeZone)
        plan.previousVersionUUIDs = previous.map { [testUUID($0)] } ?? []
        return plan
    }

    private func january(_ day: Int, _ endDay: Int) throws -> DateInterval {
        DateInterval(start: try utc.date(2024, 1, day), end: try utc.date(2024, 1, endDay))
    }

    @Test func addStoresARootAndRejectsARepeatedIDOrUUID() throws {
        var history = VersionHistory<CarePlan>()
        let first = try plan("v1", uuid: 1, effective: 1, after: 99)
        let added = try history.add(first)
        #expect(added.previousVersionUUIDs.isEmpty)
        let sameID = #expect(throws: CloudantError.self) { try history.add(try plan("again", uuid: 2, effective: 1)) }
        #expect(sameID?.code == .duplicateVersion)
    }

    @Test func updateLinksTheNewVersionToTheTipAndStampsItsDates() throws {
        var history = VersionHistory<CarePlan>()
        var first = try plan("v1", uuid: 1, effective: 1)
        first.createdDate = try utc.date(2024, 1, 1)
        try history.add(first)
        var edit = first
        edit.title = "v2"
        edit.createdDate = nil
        edit.effectiveDate = try utc.date(2024, 1, 10)
        let second = try history.update(edit, uuid: testUUID(2), now: try utc.date(2024, 1, 9))
        #expect(second.previousVersionUUIDs == [testUUID(1)])
        #expect(second.updatedDate == (try utc.date(2024, 1, 9)))
        #expect(second.createdDate == (try utc.date(2024, 1, 1)))
        #expect(history.version(uuid: testUUID(1))?.nextVersionUUIDs == [testUUID(2)])
        #expect(history.tips(id: "plan").map(\.uuid) == [testUUID(2)])
    }

    @Test func theVersionInEffectIsTheNewestEffectiveBeforeTheIntervalEnds() throws {
        var history = VersionHistory<CarePlan>()
        let first = try history.add(try plan("v1", uuid: 1, effective: 1))
        var edit = first
        edit.title = "v2"
        edit.effectiveDate = try utc.date(2024, 1, 10)
        try history.update(edit, uuid: testUUID(2), now: try utc.date(2024, 1, 5))

        #expect(history.inEffect(during: try january(2, 3)).map(\.title) == ["v1"])
        #expect(history.inEffect(during: try january(9, 10)).map(\.title) == ["v1"])
        #expect(history.inEffect(during: try january(9, 11)).map(\.title) == ["v2"])
        #expect(history.inEffect(during: nil).map(\.title) == ["v1", "v2"])
        #expect(history.inEffect(at: try utc.date(2024, 1, 10)).map(\.title) == ["v2"])
        #expect(history.inEffect(at: try utc.date(2024, 1, 9, 23)).map(\.title) == ["v1"])
        #expect(history.inEffect(during: DateInterval(start: try utc.date(2023, 12, 1), end: try utc.date(2023, 12, 2))).isEmpty)
    }

    @Test func deleteAddsATombstoneAfterWhichNothingIsInEffectAndUpdatesAreRefused() throws {
        var history = VersionHistory<CarePlan>()
        let first = try history.add(try plan("v1", uuid: 1, effective: 1))
        var gone = first
        gone.effectiveDate = try utc.date(2024, 1, 20)
        let tombstone = try history.delete(gone, uuid: testUUID(2), now: try utc.date(2024, 1, 20))
        #expect(tombstone.deletedDate == (try utc.date(2024, 1, 20)))
        #expect(tombstone.previousVersionUUIDs == [testUUID(1)])
        #expect(history.inEffect(during: try january(25, 26)).isEmpty)
        #expect(history.inEffect(during: try january(5, 6)).map(\.title) == ["v1"])
        #expect(history.inEffect(during: nil).map(\.title) == ["v1"])
        let error = #expect(throws: CloudantError.self) { try history.update(first, uuid: testUUID(3), now: Date()) }
        #expect(error?.code == .entityDeleted)
        #expect(throws: CloudantError.self) { try history.add(try plan("again", uuid: 4, effective: 1)) }
    }

    @Test func updatingAnUnknownIDIsNotFound() throws {
        var history = VersionHistory<CarePlan>()
        let error = #expect(throws: CloudantError.self) {
            try history.update(try plan("v1", uuid: 1, effective: 1), uuid: testUUID(2), now: Date())
        }
        #expect(error?.code == .notFound)
    }

    @Test func concurrentVersionsAreAllReturnedAndAnUpdateMergesThem() throws {
        let root = try plan("root", uuid: 1, effective: 1)
        let phone = try plan("phone", uuid: 2, effective: 2, after: 1)
        let watch = try plan("watch", uuid: 3, effective: 3, after: 1)
        var history = VersionHistory([root, phone, watch])
        #expect(history.conflictedIDs == ["plan"])
        #expect(Set(history.inEffect(during: try january(5, 6)).map(\.title)) == ["phone", "watch"])

        var resolved = watch
        resolved.title = "resolved"
        let merge = try history.update(resolved, uuid: testUUID(4), now: try utc.date(2024, 1, 4))
        #expect(Set(merge.previousVersionUUIDs) == [testUUID(2), testUUID(3)])
        #expect(history.conflictedIDs.isEmpty)
        #expect(history.inEffect(during: try january(5, 6)).map(\.title) == ["resolved"])
    }

    @Test func insertingVersionsIsIdempotentAndOrderIndependent() throws {
        let root = try plan("root", uuid: 1, effective: 1)
        let child = try plan("child", uuid: 2, effective: 2, after: 1)
        let grandchild = try plan("grandchild", uuid: 3, effective: 3, after: 2)
        let forward = VersionHistory([root, child, grandchild])
        let backward = VersionHistory([grandchild, child, root])
        var twice = VersionHistory([root, child, grandchild])
        #expect(twice.insert(child) == false)
        twice.insert(root)

        func links(_ history: VersionHistory<CarePlan>) -> [UUID: Set<UUID>] {
            Dictionary(uniqueKeysWithValues: history.versions.map { ($0.uuid, Set($0.nextVersionUUIDs)) })
        }
        #expect(links(forward) == links(backward))
        #expect(links(forward) == links(twice))
        #expect(twice.versions.count == 3)
        #expect(links(forward)[testUUID(1)] == [testUUID(2)])
        #expect(backward.tips(id: "plan").map(\.uuid) == [testUUID(3)])
    }

    @Test func anUndeletingVersionFromSyncMakesTheObjectVisibleAgain() throws {
        let root = try plan("root", uuid: 1, effective: 1)
        var tombstone = try plan("root", uuid: 2, effective: 2, after: 1)
        tombstone.deletedDate = try utc.date(2024, 1, 2)
        let revived = try plan("revived", uuid: 3, effective: 3, after: 2)
        let history = VersionHistory([root, tombstone, revived])
        #expect(history.inEffect(during: try january(5, 6)).map(\.title) == ["revived"])
    }
}
