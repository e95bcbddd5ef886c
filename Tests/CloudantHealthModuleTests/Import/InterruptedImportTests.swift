import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("An interrupted Apple Health import")
struct InterruptedImportTests {
    @Test func aCancelledImportKeepsWhatItCommittedAndImportingAgainCompletesIt() async throws {
        let export = try GeneratedExport.make(records: 3000, seed: 9, extra: ["--route-points", "3"])
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
        let partial = try await harness.store.collection(healthKitSampleType: .quantity).getSamples()
        #expect(!partial.isEmpty)

        let resumed = try await importer.importExport(at: export.exportFolder)
        #expect(resumed.documentsAlreadyStored == committed)
        let fresh = try HealthTestStore(name: "fresh")
        defer { fresh.remove() }
        let whole = try await AppleHealthImporter(store: fresh.store).importExport(at: export.exportFolder)
        #expect(resumed.documentsWritten + committed == whole.documentsWritten)
        #expect(try await harness.store.info().documentCount - designDocuments == whole.documentsWritten)
        #expect(resumed.samplesByType == whole.samplesByType)
    }
}
