import CloudantCareHealth
import CloudantTestSupport
import Foundation
import Testing

/// The documents the original OTFCloudantStore wrote (Tests/Fixtures/OTFDocuments), pulled from a live server
/// into a drop-in store, converted, and read back through the Care and Health APIs with nothing lost.
@Suite("Documents the original wrote")
struct OTFMigrationTests {
    /// A server holding the fixtures in `theraforge_user_42`, and a device store that pulled them.
    final class Pulled: Sendable {
        let server: LiveServer
        /// The device store's folder: it is deleted when this goes, so it lives as long as the store.
        let folder: SeedFolder
        let store: OTFCloudantStore
        let database: URL

        init(server: LiveServer, folder: SeedFolder, store: OTFCloudantStore, database: URL) {
            self.server = server
            self.folder = folder
            self.store = store
            self.database = database
        }

        static func start() async throws -> Pulled {
            let server = try await LiveServer.start()
            let database = server.url("theraforge_user_42")
            let admin = LiveServer.adminCredentials
            // The original's device pushes what it stored…
            let original = SeedFolder("seed-original")
            let device = try original.store("original")
            _ = try await device.documentStore.bulkDocs(try OTFFixtures.documents().map(JSONValue.object))
            try await device.synchronize(with: database, authentication: admin)
            // …and a device of ours pulls it.
            let folder = SeedFolder("seed-device")
            let store = try folder.store("device")
            let result = try await store.synchronize(with: database, authentication: admin)
            #expect(result.pulled.docsWritten == 19)
            return Pulled(server: server, folder: folder, store: store, database: database)
        }

        func stop() async { await server.stop() }
    }

    @discardableResult
    static func migrate(_ store: OTFCloudantStore, dryRun: Bool = false) async throws -> OTFMigrationReport {
        let care = try await store.careStore.migrateOTFDocuments(dryRun: dryRun, batchSize: 3)
        let health = try await store.documentStore.migrateOTFSamples(dryRun: dryRun, batchSize: 4)
        return care.merged(with: health)
    }

    @Test func everyEntityThePulledStoreHoldsIsListedThroughTheCareAndHealthAPIsWithNothingLost() async throws {
        let pulled = try await Pulled.start()
        defer { Task { await pulled.stop() } }
        let store = pulled.store

        let report = try await Self.migrate(store)
        #expect(report.converted == [
            "OCKPatient": 2, "OCKCarePlan": 2, "OCKContact": 2, "OCKTask": 3, "OCKOutcome": 4, "OTFCloudantSample": 6,
        ])
        #expect(report.skipped.isEmpty && report.conflicted.isEmpty)
        #expect(report.rewrittenInPlace == 7 && report.moved == 12)

        let expected = try OTFFixtures.expected()
        var listed: [String: JSONValue] = [:]
        for patient in try await store.fetchPatients() { listed[patient.id] = try JSONValue(encoding: patient) }
        for plan in try await store.fetchCarePlans() { listed[plan.id] = try JSONValue(encoding: plan) }
        for contact in try await store.fetchContacts() { listed[contact.id] = try JSONValue(encoding: contact) }
        for task in try await store.fetchTasks() { listed[task.id] = try JSONValue(encoding: task) }
        for outcome in try await store.fetchOutcomes() { listed[outcome.id] = try JSONValue(encoding: outcome) }
        for family in [OTFHealthSampleType.quantity, .category, .correlation] {
            for sample in try await store.collection(healthKitSampleType: family).getSamples() {
                listed[sample.id] = try JSONValue(encoding: sample.sample)
            }
        }
        #expect(Set(listed.keys) == Set(expected.keys))
        for (id, entry) in expected.members {
            guard let actual = listed[id] else { continue }
            OTFExpectation.check(id: id, expected: entry, actual: actual)
        }

        // Outcomes hang on their tasks' events, computed from the converted schedules.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Zurich"))
        let march2 = try #require(calendar.date(from: DateComponents(year: 2021, month: 3, day: 2)))
        let events = try await store.careStore.events(forTask: "blood-pressure-check", from: march2, to: march2 + 86_400, in: calendar.timeZone)
        #expect(events.map(\.occurrence) == [2, 3])
        #expect(events.map { $0.outcome?.id } == ["442643CF-B2A4-40A6-AFC0-15A7501CD19A_2", "442643CF-B2A4-40A6-AFC0-15A7501CD19A_3"])
    }

    @Test func conversionKeepsRevisionHistoriesAndReplicatesAsAMove() async throws {
        let pulled = try await Pulled.start()
        defer { Task { await pulled.stop() } }
        let documents = pulled.store.documentStore
        try await Self.migrate(pulled.store)

        // A task whose id is its uuid: its next revision.
        let task = try await documents.document(id: "27073EF7-017B-4976-BB1F-4D5AE908AAD7", options: ReadOptions(revs: true))
        #expect(task["entityType"] == "task")
        #expect(task["_revisions"]?["ids"]?.arrayValue?.count == 2)
        #expect(task["migratedFrom"]?["_id"] == "27073EF7-017B-4976-BB1F-4D5AE908AAD7")
        // A sample: its next revision, same id.
        let sample = try await documents.document(id: "86646a4a-17d0-4ce0-975e-115be2e5063f", options: ReadOptions(revs: true))
        #expect(sample["entityType"] == "HKQuantitySample" && sample["_rev"]?.stringValue?.hasPrefix("2-") == true)
        // A patient: moved to its uuid; the old id ends in a deleted revision naming the new one.
        let moved = try await documents.document(id: "3B09819A-85D8-4AA3-8E53-E43D607F6E58")
        #expect(moved["migratedFrom"]?["_id"] == "patient-sam-rivera")
        let oldRev = try #require(moved["migratedFrom"]?["_rev"]?.stringValue)
        let leaves = try await documents.openRevisions(id: "patient-sam-rivera", .all).compactMap { result -> JSONObject? in
            if case .ok(let leaf) = result { leaf } else { nil }
        }
        #expect(leaves.count == 1)
        #expect(leaves.first?["_deleted"] == true && leaves.first?["migratedTo"] == "3B09819A-85D8-4AA3-8E53-E43D607F6E58")
        #expect(try await documents.document(id: "patient-sam-rivera", options: ReadOptions(rev: oldRev))["entityType"] == "OCKPatient")

        // Pushed back, the server holds the same move.
        let admin = LiveServer.adminCredentials
        try await pulled.store.synchronize(with: pulled.database, authentication: admin)
        let check = try SeedFolder("seed-check").store("check")
        try await check.synchronize(with: pulled.database, authentication: admin)
        #expect(try await check.fetchPatients().map(\.id).sorted() == ["7C87A846-7CE1-4892-89B3-D631E1C57EE7", "patient-sam-rivera"])
        #expect(try await check.documentStore.allDocs().rows.filter { $0["id"]?.stringValue?.hasPrefix("patient-") == true }.isEmpty)
    }

    @Test func aDryRunReportsTheSameAndWritesNothingAndASecondRunConvertsNothing() async throws {
        let pulled = try await Pulled.start()
        defer { Task { await pulled.stop() } }
        let documents = pulled.store.documentStore
        let before = try await documents.info().updateSeq
        let preview = try await Self.migrate(pulled.store, dryRun: true)
        #expect(preview.dryRun && preview.convertedCount == 19 && preview.moved == 12)
        #expect(try await documents.info().updateSeq == before)

        let report = try await Self.migrate(pulled.store)
        #expect(report.converted == preview.converted && report.moved == preview.moved)
        let after = try await documents.info().updateSeq
        let again = try await Self.migrate(pulled.store)
        #expect(again.convertedCount == 0 && again.skipped.isEmpty)
        #expect(try await documents.info().updateSeq == after)
    }

    @Test func olderKeyConflictsAndUndecodableDocumentsAreReportedAndLeftAsTheyAre() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        let documents = store.documentStore
        // 1.0.0-beta wrote `entity_type`.
        _ = try await documents.put([
            "_id": "old-plan", "entity_type": "OCKCarePlan", "id": "old-plan", "title": "Early plan",
            "uuid": "0C3F7B40-8B1C-4A57-9C4E-2B7A6E1D9F10", "effectiveDate": "2021-01-04T10:00:00Z",
            "nextVersionUUIDs": [], "previousVersionUUIDs": [], "timezone": ["identifier": "UTC"],
        ])
        // A task without a schedule does not decode.
        let broken = try await documents.put(["_id": "broken", "entityType": "OCKTask", "id": "broken", "title": "?"])
        // A patient with a conflicting revision (two devices edited it offline).
        let body: JSONObject = [
            "entityType": "OCKPatient", "id": "p", "uuid": "5B1E2C44-0A8E-4F4B-8D83-2E1C7C0F6A11",
            "name": ["givenName": "Pat"], "effectiveDate": "2021-01-01T00:00:00Z", "nextVersionUUIDs": [],
            "previousVersionUUIDs": [], "timezone": ["identifier": "UTC"],
        ]
        var winner = body
        winner["_id"] = "p"
        winner["_rev"] = "2-bbbb"
        winner["_revisions"] = ["start": 2, "ids": ["bbbb", "aaaa"]]
        var loser = body
        loser["_id"] = "p"
        loser["_rev"] = "2-aaab"
        loser["_revisions"] = ["start": 2, "ids": ["aaab", "aaaa"]]
        loser["name"] = ["givenName": "Patricia"]
        _ = try await documents.bulkDocs([.object(winner), .object(loser)], newEdits: false)

        let report = try await store.careStore.migrateOTFDocuments()
        #expect(report.converted == ["OCKCarePlan": 1, "OCKPatient": 1])
        #expect(report.conflicted == ["p"])
        #expect(report.skipped.map(\.id) == ["broken"])
        #expect(report.skipped.first?.reason.contains("does not decode as a task") == true)
        #expect(try await documents.document(id: "broken")["_rev"]?.stringValue == broken.rev)
        #expect(try await store.fetchCarePlans().map(\.title) == ["Early plan"])
        #expect(try await store.fetchPatients().compactMap(\.name.givenName) == ["Pat"])

        // The losing revision surfaces once the winner moved; it is left for the app, not dropped.
        let second = try await store.careStore.migrateOTFDocuments()
        #expect(second.convertedCount == 0)
        #expect(second.skipped.contains { $0.id == "p" && $0.reason.contains("conflicting revision") })
        #expect(try await documents.document(id: "p")["name"]?["givenName"] == "Patricia")
    }
}

/// Compares what the Care and Health APIs list with `expected.json` (its conventions are in the fixtures'
/// README, "expected.json").
enum OTFExpectation {
    static func check(id: String, expected entry: JSONValue, actual: JSONValue) {
        let kind = entry["kind"]?.stringValue ?? ""
        #expect(actual["id"] == entry["id"], "\(id): id")
        #expect(actual["uuid"] == entry["uuid"], "\(id): uuid")
        guard case .object(let fields)? = entry["fields"] else { return }
        for (field, value) in fields.members {
            let problem = ["quantity", "category", "correlation"].contains(kind)
                ? sampleField(field, expected: value, actual: actual, kind: kind)
                : careField(field, expected: value, actual: actual[field])
            if let problem { Issue.record("\(id).\(field): \(problem)") }
        }
    }

    /// `nil` when the care field matches.
    static func careField(_ field: String, expected: JSONValue, actual: JSONValue?) -> String? {
        switch field {
        case "timezone":
            return actual?["identifier"] == expected ? nil : "\(String(describing: actual)) ≠ \(expected)"
        case "schemaVersion":
            let text = [actual?["majorVersion"], actual?["minorVersion"], actual?["patchNumber"]]
                .compactMap { $0?.numberValue.map { "\(Int($0.doubleValue))" } }.joined(separator: ".")
            return .string(text) == expected ? nil : "\(text) ≠ \(expected)"
        case "userInfo":
            // The stale revision copy is dropped; everything else stays.
            var rest = expected.objectValue ?? JSONObject()
            rest.removeValue(forKey: "revId")
            let wanted: JSONValue? = rest.isEmpty ? nil : .object(rest)
            return actual == wanted ? nil : "\(String(describing: actual)) ≠ \(String(describing: wanted))"
        case "schedule":
            let elements = actual?["elements"]?.arrayValue ?? []
            let wanted = expected.arrayValue ?? []
            guard elements.count == wanted.count else { return "\(elements.count) elements ≠ \(wanted.count)" }
            for (element, want) in zip(elements, wanted) {
                for (key, value) in want.objectValue?.members ?? [] {
                    let got = element[key]
                    let problem: String? =
                        switch key {
                        case "interval": intervalProblem(got, value)
                        case "duration":
                            got?["isAllDay"] == value["allDay"] && same(got?["seconds"], value["seconds"]) ? nil : "duration"
                        case "targetValues": valuesProblem(got, value)
                        default: same(got, value) ? nil : "\(String(describing: got)) ≠ \(value)"
                        }
                    if let problem { return "schedule.\(key): \(problem)" }
                }
            }
            return nil
        case "values": return valuesProblem(actual, expected)
        default: return same(actual, expected) ? nil : "\(String(describing: actual)) ≠ \(expected)"
        }
    }

    /// `nil` when the sample field matches: the original's own fields live in the metadata (see
    /// `migrateOTFSamples`), a category or correlation has no unit or value of its own.
    static func sampleField(_ field: String, expected: JSONValue, actual: JSONValue, kind: String) -> String? {
        let metadata = actual["metadata"]
        let got: JSONValue?
        switch field {
        case "revId": got = metadata?["OTFCloudantStore.sourceVersion"]
        case "createdDate": got = metadata?["OTFCloudantStore.createdDate"]
        case "updatedDate": got = metadata?["OTFCloudantStore.updatedDate"]
        case "syncIdentifier": got = metadata?["HKMetadataKeySyncIdentifier"]
        case "syncVersion": got = metadata?["HKMetadataKeySyncVersion"]
        case "patientID": return expected == "" && metadata?["OTFCloudantStore.patientID"] == nil ? nil : "patientID"
        case "unit" where kind != "quantity", "value" where kind == "correlation": return nil
        case "metadata":
            for (key, value) in expected.objectValue?.members ?? [] where metadata?[key] != value { return "metadata.\(key)" }
            return nil
        case "samples":
            let children = (actual["quantitySamples"]?.arrayValue ?? []) + (actual["categorySamples"]?.arrayValue ?? [])
            for want in expected.arrayValue ?? [] {
                guard let child = children.first(where: { $0["id"] == want["id"] }) else { return "missing child \(want["id"] ?? nil)" }
                for (key, value) in want["fields"]?.objectValue?.members ?? [] {
                    if let problem = sampleField(key, expected: value, actual: child, kind: want["kind"]?.stringValue ?? "") {
                        return "child \(want["id"] ?? nil): \(problem)"
                    }
                }
            }
            return children.count == expected.arrayValue?.count ? nil : "child count"
        default: got = actual[field]
        }
        return same(got, expected) ? nil : "\(String(describing: got)) ≠ \(expected)"
    }

    /// Outcome and target values: type, value, kind, units and creation date (the original's per-value
    /// fill-ins, `uuid` and `updatedDate`, are no part of CareKit's value).
    static func valuesProblem(_ actual: JSONValue?, _ expected: JSONValue) -> String? {
        let got = actual?.arrayValue ?? []
        let wanted = expected.arrayValue ?? []
        guard got.count == wanted.count else { return "\(got.count) values ≠ \(wanted.count)" }
        for (value, want) in zip(got, wanted) {
            for key in ["type", "value", "kind", "units", "createdDate"] where !same(value[key], want[key]) {
                return "value \(key): \(String(describing: value[key])) ≠ \(String(describing: want[key]))"
            }
        }
        return nil
    }

    /// Schedule intervals: the non-zero components (the original wrote only those set, or all seven).
    static func intervalProblem(_ actual: JSONValue?, _ expected: JSONValue) -> String? {
        let nonZero = (actual?.objectValue?.members ?? []).filter { $0.1 != 0 }
        let got = Dictionary(nonZero, uniquingKeysWith: { first, _ in first })
        let want = Dictionary(expected.objectValue?.members ?? [], uniquingKeysWith: { first, _ in first })
        return got == want ? nil : "\(got) ≠ \(want)"
    }

    /// Equal as JSON, with dates compared as instants (the original wrote whole seconds, the store writes
    /// milliseconds) and numbers by value.
    static func same(_ actual: JSONValue?, _ expected: JSONValue?) -> Bool {
        if actual == expected { return true }
        guard let actual, let expected else { return false }
        if case .string(let a) = actual, case .string(let b) = expected, let x = instant(a), let y = instant(b) {
            return x == y
        }
        if case .number(let a) = actual, case .number(let b) = expected { return a.doubleValue == b.doubleValue }
        if case .array(let a) = actual, case .array(let b) = expected {
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        }
        if case .object(let a) = actual, case .object(let b) = expected {
            return a.count == b.count && b.members.allSatisfy { key, value in same(a[key], value) }
        }
        return false
    }

    static func instant(_ text: String) -> Date? {
        guard text.count >= 20, text.dropFirst(4).first == "-", text.dropFirst(10).first == "T" else { return nil }
        return FlexibleISO8601.date(text)
    }
}

/// ISO 8601 with or without fractional seconds.
enum FlexibleISO8601 {
    static func date(_ text: String) -> Date? {
        let whole = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? whole.date(from: text)
    }
}
