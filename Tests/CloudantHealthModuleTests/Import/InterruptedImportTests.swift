import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("An interrupted Apple Health import")
struct InterruptedImportTests {
    @Test func aCancelledImportKeepsWhatItCommittedAndImportingAgainContinuesAfterIt() async throws {
        let export = try await GeneratedHealthExport.make(records: 3000, seed: 9, extra: ["--route-points", "3"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        // The health index's design document is there before anything is imported.
        let designDocuments = try await harness.store.info().documentCount
        let importer = AppleHealthImporter(store: harness.store, batchSize: 200)
        // Cancels the importing task itself once some batches are in, as a user pressing stop would.
        let interrupted = Task {
            try await importer.importExport(at: export.exportFolder) { progress in
                if progress.documentsProcessed >= 600 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: CancellationError.self) { try await interrupted.value }
        let committed = try await harness.store.info().documentCount - designDocuments
        #expect(committed >= 600 && committed < 3000)
        // Everything committed reads back as samples.
        let partial = try await HealthStore(store: harness.store).collection(healthKitSampleType: .quantity).getSamples()
        #expect(!partial.isEmpty)

        let resumed = try await importer.importExport(at: export.exportFolder)
        let started = try #require(resumed.resumedFrom, "the second run continues after the checkpoint")
        #expect(started.elements > 0 && (started.line ?? 0) > 1)
        let fresh = try HealthTestStore(name: "fresh")
        defer { fresh.remove() }
        let whole = try await AppleHealthImporter(store: fresh.store).importExport(at: export.exportFolder)
        // The resumed report covers the whole export, as one uninterrupted import's does.
        #expect(resumed.samplesByType == whole.samplesByType && resumed.recordsRead == whole.recordsRead)
        #expect(resumed.workoutsByType == whole.workoutsByType && resumed.activitySummaries == whole.activitySummaries)
        // At most the batch being written when it was cancelled is read again (and found unchanged).
        #expect(resumed.documentsNew + resumed.documentsUnchanged == whole.documentsNew)
        #expect(resumed.documentsUnchanged <= 200 && resumed.documentsChanged == 0)
        #expect(try await harness.store.info().documentCount - designDocuments == whole.documentsNew)
        // Complete now: a third import reads everything again and adds nothing.
        let third = try await importer.importExport(at: export.exportFolder)
        #expect(third.resumedFrom == nil && third.documentsNew == 0 && third.documentsUnchanged == whole.documentsNew)
    }

    @Test func aCutShortExportStopsWithItsPositionAndTheWholeFileCompletesIt() async throws {
        let export = try await GeneratedHealthExport.variant(["--truncate", "0.6"], generator: ["--records", "1200", "--seed", "12", "--route-points", "3"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let importer = AppleHealthImporter(store: harness.store, batchSize: 150)
        let truncated = export.exportFolder.appendingPathComponent("export-truncated.xml")
        let first = try await importer.importExport(at: truncated)
        let stop = try #require(first.stoppedEarly)
        #expect(stop.file == truncated.path && (stop.line ?? 0) > 1)
        #expect(stop.reason.contains("cut short") || stop.reason.contains("Premature end") || !stop.reason.isEmpty)
        // Every record wholly before the cut is in: the input pads its end with spaces, so libxml2 hands out
        // the records of the step where it meets the cut before it fails (see SanitizingFileInput).
        let beforeCut = expectedInt(export.expected["truncated"]?["records"])
        #expect(first.recordsRead == beforeCut)
        #expect(first.recordsRead < expectedInt(export.expected["records_total"]))

        // The same cut-short file again: it continues after the checkpoint, stores nothing more (the first run
        // had every record before the cut), changes nothing it stored and is still incomplete.
        let storedAfterFirst = try await harness.store.info().documentCount
        let again = try await importer.importExport(at: truncated)
        #expect(again.stoppedEarly != nil && again.resumedFrom != nil)
        #expect(again.documentsChanged == 0 && again.recordsRead <= beforeCut)
        #expect(try await harness.store.info().documentCount == storedAfterFirst)

        // The complete file (the download finished): continues after what was committed and completes it.
        let completed = try await importer.importExport(at: export.exportFolder.appendingPathComponent("export.xml"))
        #expect(completed.isComplete && completed.resumedFrom != nil)
        #expect(completed.recordsRead == expectedInt(export.expected["records_total"]))
        let fresh = try HealthTestStore(name: "fresh")
        defer { fresh.remove() }
        let whole = try await AppleHealthImporter(store: fresh.store).importExport(at: export.exportFolder)
        #expect(completed.samplesByType == whole.samplesByType)
        #expect(try await harness.store.info().documentCount == fresh.store.info().documentCount)
        let again2 = try await importer.importExport(at: export.exportFolder)
        #expect(again2.documentsNew == 0 && again2.documentsChanged == 0 && again2.resumedFrom == nil)
    }
}
