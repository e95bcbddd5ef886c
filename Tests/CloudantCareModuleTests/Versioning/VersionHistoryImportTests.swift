import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// Importing a CareKit history: exact versions, any order, checked as a whole before anything is added.
@Suite("Version history import")
struct VersionHistoryImportTests {
    private let utc: Zone
    init() throws { utc = try Zone.utc() }

    /// Version `uuid` of plan `id`, following `previous`, effective on January `day`.
    private func version(_ uuid: Int, of id: String = "p", after previous: [Int] = [], day: Int = 1) throws -> CarePlan {
        var plan = CarePlan(
            id: id, title: "v\(uuid)", patientUUID: nil, uuid: testUUID(uuid), effectiveDate: try utc.date(2024, 1, day),
            timezone: utc.timeZone)
        plan.previousVersionUUIDs = previous.map(testUUID)
        return plan
    }

    private func chainError(_ body: () throws -> Void) -> CloudantError? {
        #expect(throws: CloudantError.self) { try body() }
    }

    @Test func versionsGivenInAnyOrderAreAddedAsExactlyThoseVersions() throws {
        var history = VersionHistory<CarePlan>()
        let batch = [try version(3, after: [2], day: 20), try version(1), try version(2, after: [1], day: 10)]
        let added = try history.importVersions(batch)
        #expect(added.map(\.uuid) == [testUUID(3), testUUID(1), testUUID(2)])
        #expect(history.tips(id: "p").map(\.uuid) == [testUUID(3)])
        #expect(history.version(uuid: testUUID(1))?.nextVersionUUIDs == [testUUID(2)])
        #expect(history.inEffect(at: try utc.date(2024, 1, 15)).map(\.title) == ["v2"])
    }

    @Test func importingTheSameHistoryAgainAddsNothing() throws {
        var history = VersionHistory<CarePlan>()
        let batch = [try version(1), try version(2, after: [1], day: 10)]
        try history.importVersions(batch)
        #expect(try history.importVersions(batch.reversed()).isEmpty)
        #expect(history.versions.count == 2)
    }

    @Test func aHistoryMayContinueStoredVersions() throws {
        var history = VersionHistory([try version(1)])
        let added = try history.importVersions([try version(3, after: [2], day: 20), try version(2, after: [1], day: 10)])
        #expect(added.count == 2)
        #expect(history.tips(id: "p").map(\.uuid) == [testUUID(3)])
    }

    @Test func aPreviousVersionNeitherInTheBatchNorPresentIsABrokenChainNamingTheVersion() throws {
        var history = VersionHistory<CarePlan>()
        let error = chainError { try history.importVersions([try version(1), try version(3, after: [2], day: 20)]) }
        #expect(error?.code == .brokenVersionChain)
        #expect(error?.context.documentID == "p")
        #expect(error?.context.itemIndex == 1)
        #expect(error?.versionChainError == VersionChainError(id: "p", uuid: testUUID(3), problem: .missingPrevious(testUUID(2))))
        #expect(error?.message.contains(testUUID(3).uuidString) == true)
        #expect(history.versions.isEmpty)
    }

    @Test func aPreviousVersionOfAnotherObjectIsABrokenChain() throws {
        var history = VersionHistory([try version(1, of: "q")])
        let error = chainError { try history.importVersions([try version(2, after: [1])]) }
        #expect(error?.versionChainError?.problem == .previousOfAnotherObject(testUUID(1)))
    }

    @Test func aCycleIsABrokenChainAndAddsNothing() throws {
        var history = VersionHistory<CarePlan>()
        let error = chainError {
            try history.importVersions([
                try version(1, after: [3]), try version(2, after: [1], day: 10), try version(3, after: [2], day: 20),
            ])
        }
        #expect(error?.code == .brokenVersionChain)
        #expect(error?.versionChainError?.problem == .cycle)
        #expect(history.versions.isEmpty)
    }

    @Test func aVersionThatIsItsOwnPreviousIsACycle() throws {
        var history = VersionHistory<CarePlan>()
        let error = chainError { try history.importVersions([try version(1, after: [1])]) }
        #expect(error?.versionChainError == VersionChainError(id: "p", uuid: testUUID(1), problem: .cycle))
    }

    @Test func twoVersionsContinuingOneVersionAreAForkUnlessAMergeVersionJoinsThem() throws {
        var history = VersionHistory<CarePlan>()
        let branches = [try version(1), try version(2, after: [1], day: 10), try version(3, after: [1], day: 12)]
        let error = chainError { try history.importVersions(branches) }
        #expect(error?.code == .brokenVersionChain)
        #expect(error?.versionChainError?.problem == .fork(tail: testUUID(1), other: testUUID(2)))
        #expect(error?.versionChainError?.uuid == testUUID(3))
        #expect(history.versions.isEmpty)

        let merged = branches + [try version(4, after: [2, 3], day: 15)]
        #expect(try history.importVersions(merged).count == 4)
        #expect(history.tips(id: "p").map(\.uuid) == [testUUID(4)])
    }

    @Test func continuingAStoredVersionThatAlreadyHasANextVersionIsAFork() throws {
        var history = VersionHistory([try version(1), try version(2, after: [1], day: 10)])
        let error = chainError { try history.importVersions([try version(3, after: [1], day: 12)]) }
        #expect(error?.versionChainError?.problem == .fork(tail: testUUID(1), other: testUUID(2)))
        #expect(history.versions.count == 2)
    }

    @Test func aSecondFirstVersionOfAPresentObjectIsADuplicateVersion() throws {
        var history = VersionHistory([try version(1)])
        let error = chainError { try history.importVersions([try version(2)]) }
        #expect(error?.code == .duplicateVersion)
        #expect(error?.versionChainError?.problem == .secondFirstVersion(other: testUUID(1)))
    }

    @Test func twoFirstVersionsInOneBatchAreABrokenChain() throws {
        var history = VersionHistory<CarePlan>()
        let error = chainError { try history.importVersions([try version(1), try version(2)]) }
        #expect(error?.code == .brokenVersionChain)
    }

    @Test func oneUUIDTwiceWithDifferentContentsOrForTwoObjectsIsADuplicateVersion() throws {
        var history = VersionHistory<CarePlan>()
        var edited = try version(1)
        edited.title = "edited"
        let twice = chainError { try history.importVersions([try version(1), edited]) }
        #expect(twice?.code == .duplicateVersion)
        #expect(twice?.context.itemIndex == 1)
        #expect(try history.importVersions([try version(1), try version(1)]).count == 1)

        let another = chainError { try history.importVersions([try version(1, of: "q")]) }
        #expect(another?.code == .duplicateVersion)
        #expect(another?.context.documentID == "q")
    }

    @Test func anExistingConflictMayBeExtendedButNotWidened() throws {
        // Two tips already (a conflict from sync): extending one keeps two; a third branch is refused.
        var history = VersionHistory([
            try version(1), try version(2, after: [1], day: 10), try version(3, after: [1], day: 12),
        ])
        #expect(try history.importVersions([try version(4, after: [2], day: 14)]).count == 1)
        let error = chainError { try history.importVersions([try version(5, after: [1], day: 16)]) }
        #expect(error?.versionChainError?.problem == .fork(tail: testUUID(1), other: testUUID(2)))
    }
}
