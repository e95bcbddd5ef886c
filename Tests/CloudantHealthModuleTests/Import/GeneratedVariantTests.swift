import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Generated exports post-processed by `Tests/Fixtures/HealthExports/export_variants.py`, with its exact counts.
@Suite("Generated exports with unknown types, several sources and offsets")
struct GeneratedVariantTests {
    @Test func unknownTypesAreKeptAndCountedAndEveryRecordIsAccountedFor() async throws {
        let export = try await GeneratedHealthExport.variant(
            ["--unknown-types", "7", "--second-source", "--offsets", "9"],
            generator: ["--records", "2000", "--seed", "17", "--route-points", "3", "--quirk", "dtd-ios16", "--quirk", "vt-char"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store, batchSize: 300).importExport(at: export.exportFolder)
        #expect(report.recordsRead == expectedInt(export.expected["records_total"]))
        #expect(report.samplesByType == expectedCounts(export.expected["records_by_type"]))
        #expect(report.genericSamplesByType == expectedCounts(export.expected["generic_by_type"]))
        #expect(report.genericSamplesByType == ["HKDataTypeSleepDurationGoal": 7, "MoodDiaryDailyScore": 7])
        #expect(report.metadataEntries == expectedInt(export.expected["metadata_entries"]))
        #expect(report.skippedCount == 0 && report.isComplete)
        #expect(report.recordsRead == report.samplesByType.values.reduce(0, +) + report.genericSamplesByType.values.reduce(0, +))
        let goals = try await HealthStore(store: harness.store).samples(ofType: "HKDataTypeSleepDurationGoal")
        #expect(goals.count == 7)
        #expect(goals.allSatisfy { if case .generic(let goal) = $0 { goal.value?.numberValue != nil && goal.metadata["HKWasUserEntered"] == 1 } else { false } })
        // The heart rates written in +05:30 keep it; the others keep the export's own zone.
        let rates = try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierHeartRate")
        #expect(rates.filter { $0.sample.startUTCOffset == 19_800 }.count == expectedInt(export.expected["offset_records"]))
        #expect(rates.allSatisfy { [19_800, -7 * 3600, -8 * 3600].contains($0.sample.startUTCOffset ?? 0) })
        let again = try await AppleHealthImporter(store: harness.store).importExport(at: export.exportFolder)
        #expect(again.documentsNew == 0 && again.documentsChanged == 0 && again.documentsUnchanged == report.documentsNew)
    }
}
