import Foundation
import Testing

/// The `cloudant care` commands as a user types them: JSON in, JSON out.
@Suite("cloudant care")
struct CareCommandTests {
    private static let taskJSON = """
        {"id":"meds","title":"Meds","effectiveDate":"2024-03-29T00:00:00Z",
         "schedule":{"elements":[{"start":"2024-03-29T08:00:00+01:00","interval":{"day":1},
           "duration":{"isAllDay":false,"seconds":3600},"targetValues":[]}]},
         "timezone":{"identifier":"Europe/Paris"}}
        """

    private func run(_ arguments: [String], stdin: String? = nil, in folder: URL) async throws -> CLIRunner.Output {
        try await CLIRunner.run(arguments, stdin: stdin, in: folder)
    }

    @Test func addPrintsTheStoredVersionWithAMintedUUIDAndStampedDates() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try await run(["care", "add", "--db", "clinic", "careplan"], stdin: #"{"id":"diabetes","title":"Diabetes"}"#, in: folder)
        #expect(added.status == 0, "\(added.stderr)")
        let plan = try jsonObject(added.stdout)
        #expect(plan["id"] as? String == "diabetes")
        #expect((plan["uuid"] as? String).flatMap(UUID.init(uuidString:)) != nil)
        #expect(plan["createdDate"] is String)
        #expect(plan["previousVersionUUIDs"] as? [String] == [])
    }

    @Test func careKitNumericDatesAndArraysAreAccepted() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 725760000 seconds after 2001-01-01 is 2024-01-01T00:00:00Z.
        let input = #"[{"id":"a","title":"A","effectiveDate":725760000},{"id":"b","title":"B","effectiveDate":725760000}]"#
        let added = try await run(["care", "add", "--db", "clinic", "careplan"], stdin: input, in: folder)
        #expect(added.status == 0, "\(added.stderr)")
        let plans = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [[String: Any]])
        #expect(plans.map { $0["effectiveDate"] as? String } == ["2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z"])
    }

    @Test func updateChainsAVersionAndImportKeepsExactVersions() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = "11111111-1111-4111-8111-111111111111"
        let second = "22222222-2222-4222-8222-222222222222"
        let history = """
            [{"id":"p","uuid":"\(first)","previousVersionUUIDs":[],"title":"One","effectiveDate":"2024-01-01T00:00:00Z",
              "timezone":{"identifier":"UTC"}},
             {"id":"p","uuid":"\(second)","previousVersionUUIDs":["\(first)"],"title":"Two",
              "effectiveDate":"2024-02-01T00:00:00Z","timezone":{"identifier":"UTC"}}]
            """
        let imported = try await run(["care", "add", "--db", "clinic", "careplan"], stdin: history, in: folder)
        #expect(imported.status == 0, "\(imported.stderr)")
        let january = try await run(["care", "list", "--db", "clinic", "careplan", "--at", "2024-01-15T00:00:00Z"], in: folder)
        #expect(try titles(january.stdout) == ["One"])
        let update = #"{"id":"p","title":"Three","effectiveDate":"2024-03-01T00:00:00Z","timezone":{"identifier":"UTC"}}"#
        let updated = try await run(["care", "update", "--db", "clinic", "careplan"], stdin: update, in: folder)
        #expect(updated.status == 0, "\(updated.stderr)")
        let version = try jsonObject(updated.stdout)
        #expect(version["previousVersionUUIDs"] as? [String] == [second])
        #expect(version["uuid"] as? String != second)
        let march = try await run(["care", "list", "--db", "clinic", "careplan", "--at", "2024-03-02T00:00:00Z"], in: folder)
        #expect(try titles(march.stdout) == ["Three"])
        // Importing the same history again stores nothing new.
        #expect(try await run(["care", "add", "--db", "clinic", "careplan"], stdin: history, in: folder).status == 0)
        let all = try await run(["care", "list", "--db", "clinic", "careplan", "--at", "2024-03-02T00:00:00Z"], in: folder)
        #expect(try titles(all.stdout) == ["Three"])
    }

    @Test func eventsArePrintedWithTheZonesOffsetAcrossDST() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try await run(["care", "add", "--db", "clinic", "task"], stdin: Self.taskJSON, in: folder)
        #expect(added.status == 0, "\(added.stderr)")
        let uuid = try #require(try jsonObject(added.stdout)["uuid"] as? String)
        let events = try await run(
            [
                "care", "events", "--db", "clinic", "--task", "meds", "--from", "2024-03-30T00:00:00+01:00", "--to",
                "2024-04-01T00:00:00+02:00", "--tz", "Europe/Paris",
            ], in: folder)
        #expect(events.status == 0, "\(events.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["start"] as? String } == ["2024-03-30T08:00:00+01:00", "2024-03-31T08:00:00+02:00"])
        #expect(list.map { $0["end"] as? String } == ["2024-03-30T09:00:00+01:00", "2024-03-31T09:00:00+02:00"])
        #expect(list.map { $0["occurrence"] as? Int } == [1, 2])
        #expect(list.allSatisfy { $0["taskId"] as? String == "meds" && $0["taskUUID"] as? String == uuid })
        #expect(list.map { $0["elementIndex"] as? Int } == [0, 0])
    }

    @Test func anOrphanedOutcomeFailsWithAnErrorOnStandardError() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = #"{"id":"o","taskUUID":"33333333-3333-4333-8333-333333333333","taskOccurrenceIndex":0,"values":[]}"#
        let result = try await run(["care", "add", "--db", "clinic", "outcome"], stdin: outcome, in: folder)
        #expect(result.status != 0)
        #expect(try jsonObject(result.stderr)["error"] is String)
    }

    @Test func anArrayIsAddedAtomicallySoAFailingItemStoresNothing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = #"{"id":"taken","title":"Taken","effectiveDate":"2024-01-01T00:00:00Z"}"#
        #expect(try await run(["care", "add", "--db", "clinic", "careplan"], stdin: first, in: folder).status == 0)
        let batch = #"[{"id":"fresh","title":"Fresh","effectiveDate":"2024-01-01T00:00:00Z"},"# + first + "]"
        let failed = try await run(["care", "add", "--db", "clinic", "careplan"], stdin: batch, in: folder)
        #expect(failed.status != 0)
        #expect(try jsonObject(failed.stderr)["error"] is String)
        #expect(try jsonObject(failed.stderr)["item"] as? Int == 1)  // the second element of the input
        let listed = try await run(["care", "list", "--db", "clinic", "careplan", "--at", "2024-02-01T00:00:00Z"], in: folder)
        #expect(try titles(listed.stdout) == ["Taken"])
    }

    @Test func aNoteIsAddedAsANewVersionOfTheObjectItAnnotates() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await run(["care", "add", "--db", "clinic", "careplan"], stdin: #"{"id":"p","title":"P"}"#, in: folder).status == 0)
        let note = #"{"kind":"careplan","id":"p","note":{"author":"Dr. Lee","content":"Check weekly"}}"#
        let result = try await run(["care", "add", "--db", "clinic", "note"], stdin: note, in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let version = try jsonObject(result.stdout)
        #expect((version["notes"] as? [[String: String]])?.first?["author"] == "Dr. Lee")
        #expect((version["previousVersionUUIDs"] as? [String])?.count == 1)
    }

    private func titles(_ output: String) throws -> [String] {
        let list = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        return list.compactMap { $0["title"] as? String }
    }
}
