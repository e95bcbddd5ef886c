@testable import CloudantCareModule
import CloudantCore
import Foundation
import Testing

@Suite("Outcomes by date keep each outcome's newest live version")
struct NewestLiveVersionTests {
    @Test("The versions kept are those a version history keeps: live, and replaced by no version read")
    func keptVersionsAgreeWithAVersionHistory() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let count = Int.random(in: 0...12, using: &generator)
            // Links point at versions read (0..<count) and at versions not read (100...); some name themselves.
            func someUUIDs() -> [UUID] {
                (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                    Bool.random(using: &generator) ? testUUID(Int.random(in: 0..<max(count, 1), using: &generator))
                        : testUUID(100 + Int.random(in: 0...3, using: &generator))
                }
            }
            let versions = (0..<count).map { number -> Outcome in
                var outcome = Outcome(
                    taskUUID: testUUID(999), taskOccurrenceIndex: number, values: [], id: "outcome-\(number % 4)",
                    uuid: testUUID(number), effectiveDate: Date(timeIntervalSince1970: 1_704_067_200),
                    timezone: TimeZone(identifier: "UTC")!)
                outcome.previousVersionUUIDs = someUUIDs()
                outcome.nextVersionUUIDs = someUUIDs()
                if Int.random(in: 0..<4, using: &generator) == 0 { outcome.deletedDate = Date(timeIntervalSince1970: 1_704_153_600) }
                return outcome
            }
            // As a find returns them: the stored body (next versions are not stored) behind `_id` and `_rev`.
            let documents = try versions.map { version in
                var body = try CareDocument.make(version, knowledge: KnowledgeVector(), author: nil, event: nil)
                body["nextVersionUUIDs"] = .array(version.nextVersionUUIDs.map { .string($0.uuidString) })
                return body.prepending([("_id", .string(version.uuid.uuidString)), ("_rev", "1-abc")])
            }
            let history = VersionHistory(versions)
            let expected = versions.filter { $0.deletedDate == nil && history.next(of: $0).isEmpty }
                .compactMap { history.version(uuid: $0.uuid) }
            let kept = try CareStore.newestLive(Outcome.self, in: documents)
            #expect(kept.map(\.version) == expected)
            #expect(kept.map { $0.document["_id"]?.stringValue } == expected.map { $0.uuid.uuidString })
        }
    }
}
