import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Importing an export again, or a newer one of the same person")
struct ReimportTests {
    /// The iOS 13 fixture as a later export of the same phone writes it: new HKDevice pointers everywhere,
    /// the iPhone renamed, a sync-identified record edited, the day's activity completed, new records.
    private func newerExport(of folder: URL) throws {
        let file = folder.appendingPathComponent("apple_health_export/export.xml")
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "2019-11-06 21:14:03 +0000", with: "2019-11-09 08:00:00 +0000")
        text = text.replacingOccurrences(of: "0x283b1e080", with: "0x2a1234567")
            .replacingOccurrences(of: "0x283b1f2c0", with: "0x2a7654321")
            .replacingOccurrences(of: "sourceName=\"Sam’s iPhone\"", with: "sourceName=\"Sam’s iPhone 11\"")
            .replacingOccurrences(of: "value=\"500\">", with: "value=\"750\">")
            .replacingOccurrences(of: "<MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"2\"/>\n </Record>",
                                  with: "<MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"3\"/>\n </Record>")
            .replacingOccurrences(of: "appleExerciseTime=\"24\"", with: "appleExerciseTime=\"47\"")
        let added = """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Sam’s iPhone 11" sourceVersion="13.2" unit="count" creationDate="2019-11-07 09:00:00 +0000" startDate="2019-11-07 08:40:00 +0000" endDate="2019-11-07 08:50:00 +0000" value="640"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Sam’s iPhone 11" sourceVersion="13.2" unit="count" creationDate="2019-11-08 09:00:00 +0000" startDate="2019-11-08 08:40:00 +0000" endDate="2019-11-08 08:50:00 +0000" value="702"/>
             <ActivitySummary dateComponents="2019-11-06" activeEnergyBurned="380" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleExerciseTime="31" appleExerciseTimeGoal="30" appleStandHours="10" appleStandHoursGoal="12"/>
            </HealthData>
            """
        text = text.replacingOccurrences(of: "</HealthData>", with: added)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    @Test func aNewerExportAddsWhatIsNewUpdatesWhatChangedAndSaysHowMany() async throws {
        let copy = try DriftFixture.copy("ios13")
        defer { try? FileManager.default.removeItem(at: copy) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let importer = AppleHealthImporter(store: harness.store, batchSize: 5)
        let first = try await importer.importExport(at: copy)
        #expect(first.documentsNew == 14 && first.documentsUnchanged == 0 && first.documentsChanged == 0)
        let again = try await importer.importExport(at: copy)
        #expect(again.documentsNew == 0 && again.documentsUnchanged == 14 && again.documentsChanged == 0)

        try newerExport(of: copy)
        let newer = try await importer.importExport(at: copy)
        #expect(newer.documentsNew == 3, "two step records and a day's summary")
        #expect(newer.documentsChanged == 4, "the renamed phone's two records, the edited water, the completed day")
        #expect(newer.documentsUnchanged == 10, "new HKDevice pointers change nothing")
        #expect(newer.documentsWritten == 7)
        let designDocuments = 1
        #expect(try await harness.store.info().documentCount == 17 + designDocuments)
        let water = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierDietaryWater").first)
        guard case .quantity(let edited) = water else { Issue.record("water is a quantity"); return }
        #expect(edited.value == 750 && edited.metadata["HKMetadataKeySyncVersion"] == 3)
        #expect(edited.revId?.hasPrefix("2-") == true, "a changed record is a new revision of its document")
        let steps = try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierStepCount")
        #expect(steps.count == 3 && steps.allSatisfy { $0.sample.source?.name == "Sam’s iPhone 11" })
        let summary = try #require(try await harness.store.get(ActivitySummarySample.self).first { $0.day.description == "2019-11-05" })
        #expect(summary.appleExerciseTime?.value == 47)

        let newerAgain = try await importer.importExport(at: copy)
        #expect(newerAgain.documentsNew == 0 && newerAgain.documentsChanged == 0 && newerAgain.documentsUnchanged == 17)
    }

    @Test func twoRecordsTheKeyCannotTellApartAreBothKeptAndReimportingChangesNeither() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("twins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two apps wrote the same steps at the same second: one key, two records.
        let record = { (source: String) in
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="\#(source)" unit="count" "#
                + #"creationDate="2024-03-01 09:00:00 +0100" startDate="2024-03-01 08:00:00 +0100" "#
                + #"endDate="2024-03-01 08:30:00 +0100" value="1500"/>"#
        }
        let xml = "<HealthData locale=\"fr_FR\">\n <ExportDate value=\"2024-03-02 10:00:00 +0100\"/>\n "
            + record("Pedometer++") + "\n " + record("StepsApp") + "\n</HealthData>\n"
        try Data(xml.utf8).write(to: folder.appendingPathComponent("export.xml"))
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let importer = AppleHealthImporter(store: harness.store)
        let first = try await importer.importExport(at: folder)
        #expect(first.documentsNew == 2 && first.documentsChanged == 0)
        let sources = try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierStepCount").compactMap { $0.sample.source?.name }
        #expect(Set(sources) == ["Pedometer++", "StepsApp"])
        let again = try await importer.importExport(at: folder)
        #expect(again.documentsNew == 0 && again.documentsChanged == 0 && again.documentsUnchanged == 2)
    }

    @Test func aSampleDeletedSinceAnImportStaysDeleted() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let importer = AppleHealthImporter(store: harness.store)
        _ = try await importer.importExport(at: DriftFixture.folder("ios12"))
        let pulse = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierHeartRate").first)
        let rev = try #require(try await harness.store.document(id: pulse.id)["_rev"]?.stringValue)
        _ = try await harness.store.delete(id: pulse.id, rev: rev)
        let again = try await importer.importExport(at: DriftFixture.folder("ios12"))
        #expect(again.documentsNew == 0 && again.documentsChanged == 0 && again.documentsUnchanged == 9)
        #expect(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierHeartRate").count == 1)
    }
}
