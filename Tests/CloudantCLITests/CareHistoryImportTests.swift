import Foundation
import Testing

/// `cloudant care add|update` with a CareKit history: every version of a task, exported as one array.
@Suite("cloudant care history import")
struct CareHistoryImportTests {
    private static let uuids = [
        "A1A1A1A1-0000-4000-8000-000000000001", "A1A1A1A1-0000-4000-8000-000000000002",
        "A1A1A1A1-0000-4000-8000-000000000003",
    ]

    /// A version as CareKit's JSONEncoder writes it: dates in seconds since 2001-01-01.
    private static func version(_ index: Int, hour: Int, effective: String, previous: [String]) -> String {
        let effectiveSeconds = seconds(effective)
        let start = seconds("2024-01-01T00:00:00Z") + Double(hour * 3600)
        let links = previous.map { "\"\($0)\"" }.joined(separator: ",")
        return """
            {"id":"meds","uuid":"\(uuids[index])","previousVersionUUIDs":[\(links)],"nextVersionUUIDs":[],
             "title":"Meds at \(hour)","effectiveDate":\(effectiveSeconds),"createdDate":\(seconds("2023-12-01T00:00:00Z")),
             "updatedDate":\(effectiveSeconds),"impactsAdherence":true,"timezone":{"identifier":"UTC"},
             "schemaVersion":{"majorVersion":2,"minorVersion":1,"patchNumber":0},
             "schedule":{"elements":[{"start":\(start),"interval":{"day":1,"hour":0,"minute":0,"second":0,"month":0,
               "year":0,"weekOfYear":0},"duration":{"isAllDay":false,"seconds":3600},"targetValues":[]}]}}
            """
    }

    private static func seconds(_ iso: String) -> Double {
        (ISO8601DateFormatter().date(from: iso) ?? .distantPast).timeIntervalSinceReferenceDate
    }

    /// Three versions, effective Jan 1, Jan 10 and Jan 20, listed newest first, then oldest, then the middle.
    private static let history = """
        [\(version(2, hour: 20, effective: "2024-01-20T00:00:00Z", previous: [uuids[1]])),
         \(version(0, hour: 8, effective: "2024-01-01T00:00:00Z", previous: [])),
         \(version(1, hour: 12, effective: "2024-01-10T00:00:00Z", previous: [uuids[0]]))]
        """

    @Test func aCareKitHistoryExportedAsOneArrayRoundTripsThroughAddAndListAtEachEffectiveDate() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try await CLIRunner.run(["care", "add", "task"], stdin: Self.history, in: folder)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try jsonArray(added.stdout).map { $0["uuid"] as? String } == [Self.uuids[2], Self.uuids[0], Self.uuids[1]])

        let expected: [(at: String, uuid: String, title: String, previous: [String])] = [
            ("2024-01-01T00:00:00Z", Self.uuids[0], "Meds at 8", []),
            ("2024-01-10T00:00:00Z", Self.uuids[1], "Meds at 12", [Self.uuids[0]]),
            ("2024-01-20T00:00:00Z", Self.uuids[2], "Meds at 20", [Self.uuids[1]]),
        ]
        for version in expected {
            let listed = try await CLIRunner.run(["care", "list", "task", "--at", version.at], in: folder)
            let tasks = try jsonArray(listed.stdout)
            #expect(tasks.count == 1, "\(version.at)")
            #expect(tasks.first?["uuid"] as? String == version.uuid)
            #expect(tasks.first?["title"] as? String == version.title)
            #expect(tasks.first?["previousVersionUUIDs"] as? [String] == version.previous)
            #expect(tasks.first?["effectiveDate"] as? String == version.at.replacingOccurrences(of: "Z", with: ".000Z"))
            #expect(tasks.first?["createdDate"] as? String == "2023-12-01T00:00:00.000Z")
        }
        // Each version owns its days in the events too.
        let events = try jsonArray(
            try await CLIRunner.run(
                ["care", "events", "--task", "meds", "--from", "2024-01-09T00:00:00Z", "--to", "2024-01-11T00:00:00Z"],
                in: folder
            ).stdout)
        #expect(events.map { $0["start"] as? String } == ["2024-01-09T08:00:00+00:00", "2024-01-10T12:00:00+00:00"])

        // Importing the same export again stores nothing new and still succeeds.
        #expect(try await CLIRunner.run(["care", "add", "task"], stdin: Self.history, in: folder).status == 0)
        let all = try await CLIRunner.run(["changes", "--db", "care"], in: folder)
        let rows = try #require(try jsonObject(all.stdout)["results"] as? [[String: Any]])
        #expect(rows.filter { ($0["id"] as? String)?.hasPrefix("A1A1A1A1") == true }.count == 3)
    }

    @Test func aBrokenHistoryIsInvalidInputNamingTheObjectAndTheVersionAndStoresNothing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The middle version is missing: the newest names a previous version that is nowhere.
        let broken = "[\(Self.version(0, hour: 8, effective: "2024-01-01T00:00:00Z", previous: [])),"
            + "\(Self.version(2, hour: 20, effective: "2024-01-20T00:00:00Z", previous: [Self.uuids[1]]))]"
        let refused = try await CLIRunner.run(["care", "add", "task"], stdin: broken, in: folder)
        let error = try refused.expectError(status: 2, ["error": "bad_request", "code": "brokenVersionChain", "id": "meds"])
        #expect(error["item"] as? Int == 1)
        let reason = try #require(error["reason"] as? String)
        #expect(reason.contains(Self.uuids[2]) && reason.contains(Self.uuids[1]))
        let listed = try await CLIRunner.run(["care", "list", "task", "--at", "2024-01-02T00:00:00Z"], in: folder)
        #expect(try jsonArray(listed.stdout).isEmpty)

        // Two versions continuing the first one: a fork, also refused.
        let fork = "[\(Self.version(0, hour: 8, effective: "2024-01-01T00:00:00Z", previous: [])),"
            + "\(Self.version(1, hour: 12, effective: "2024-01-10T00:00:00Z", previous: [Self.uuids[0]])),"
            + "\(Self.version(2, hour: 20, effective: "2024-01-20T00:00:00Z", previous: [Self.uuids[0]]))]"
        let forked = try await CLIRunner.run(["care", "add", "task"], stdin: fork, in: folder)
        try forked.expectError(status: 2, ["code": "brokenVersionChain"])
    }

    @Test func aVersionOfAnExistingIdWithoutAChainLinkIsAConflict() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = Self.version(0, hour: 8, effective: "2024-01-01T00:00:00Z", previous: [])
        #expect(try await CLIRunner.run(["care", "add", "task"], stdin: first, in: folder).status == 0)
        // Another first version of "meds", with its own uuid and no link to the stored one.
        let second = first.replacingOccurrences(of: Self.uuids[0], with: Self.uuids[1])
        let refused = try await CLIRunner.run(["care", "add", "task"], stdin: second, in: folder)
        try refused.expectError(status: 4, ["error": "conflict", "code": "duplicateVersion", "id": "meds"])
    }

    @Test func updateImportsAHistoryAndUpdatesOtherObjectsInOneTransaction() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = #"{"id":"plan","title":"Plan","effectiveDate":"2024-01-01T00:00:00Z"}"#
        #expect(try await CLIRunner.run(["care", "add", "careplan"], stdin: plan, in: folder).status == 0)
        let history = """
            {"id":"other","uuid":"\(Self.uuids[0])","previousVersionUUIDs":[],"title":"One",
             "effectiveDate":"2024-01-01T00:00:00Z"},
            {"id":"other","uuid":"\(Self.uuids[1])","previousVersionUUIDs":["\(Self.uuids[0])"],"title":"Two",
             "effectiveDate":"2024-01-05T00:00:00Z"}
            """
        // An update of an object that does not exist fails the whole call: the history is not stored either.
        let missing = #"{"id":"absent","title":"Nope","effectiveDate":"2024-01-03T00:00:00Z"}"#
        let failed = try await CLIRunner.run(["care", "update", "careplan"], stdin: "[\(history),\(missing)]", in: folder)
        #expect(failed.status == 3)
        #expect(try jsonObject(failed.stderr)["item"] as? Int == 2)
        let none = try await CLIRunner.run(["care", "list", "careplan", "--at", "2024-01-06T00:00:00Z"], in: folder)
        #expect(try jsonArray(none.stdout).map { $0["title"] as? String } == ["Plan"])

        let edit = #"{"id":"plan","title":"Plan v2","effectiveDate":"2024-01-03T00:00:00Z"}"#
        let updated = try await CLIRunner.run(["care", "update", "careplan"], stdin: "[\(history),\(edit)]", in: folder)
        #expect(updated.status == 0, "\(updated.stderr)")
        let listed = try jsonArray(
            try await CLIRunner.run(["care", "list", "careplan", "--at", "2024-01-06T00:00:00Z"], in: folder).stdout)
        #expect(Set(listed.compactMap { $0["title"] as? String }) == ["Plan v2", "Two"])
    }
}
