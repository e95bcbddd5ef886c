import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Apple Health export import")
struct AppleHealthImporterTests {
    @Test func importsExactlyTheGeneratorsExpectedCounts() async throws {
        let export = try await GeneratedHealthExport.make(records: 3000, seed: 3, extra: ["--route-points", "6", "--cda-entries", "4"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store, batchSize: 500).importExport(at: export.root)
        let expected = export.expected
        #expect(report.recordsRead == expectedInt(expected["records_total"]))
        #expect(report.samplesByType == expectedCounts(expected["records_by_type"]))
        #expect(report.correlationsByType == expectedCounts(expected["correlations_by_type"]))
        #expect(report.correlationMemberRecords == expectedInt(expected["correlation_member_records"]))
        #expect(report.workoutsByType == expectedCounts(expected["workouts_by_type"]))
        #expect(report.workoutRoutes == expectedInt(expected["workout_routes"]))
        #expect(report.routePoints == expectedInt(expected["gpx_points"]))
        #expect(report.metadataEntries == expectedInt(expected["metadata_entries"]))
        #expect(report.heartbeatEntries == expectedInt(expected["hrv_instantaneous_bpm"]))
        #expect(report.cdaDocuments == 1)
        #expect(report.activitySummaries == expectedInt(expected["activity_summaries"]))
        #expect(report.clinicalRecordsByType == expectedCounts(expected["clinical_records_by_type"]))
        #expect(report.documentsUnchanged == 0)
        #expect(report.futureDatedSamples == 0)
        #expect(report.exportDate != nil)

        // What the store holds matches, family by family, type by type.
        let quantities = try await HealthStore(store: harness.store).collection(healthKitSampleType: .quantity).getSamples()
        let categories = try await HealthStore(store: harness.store).collection(healthKitSampleType: .category).getSamples()
        let byType = (quantities + categories).reduce(into: [String: Int]()) { $0[$1.typeIdentifier, default: 0] += 1 }
        #expect(byType == expectedCounts(expected["records_by_type"]))
        let workouts = try await harness.store.get(WorkoutSample.self)
        #expect(workouts.count == expectedCounts(expected["workouts_by_type"]).values.reduce(0, +))
        #expect(workouts.allSatisfy { $0.startUTCOffset == -7 * 3600 || $0.startUTCOffset == -8 * 3600 })
        #expect(workouts.allSatisfy { !$0.statistics.isEmpty && $0.totalEnergyBurned != nil })
        let routes = try await harness.store.get(WorkoutRouteSample.self)
        #expect(routes.reduce(0) { $0 + $1.locations.count } == expectedInt(expected["gpx_points"]))
        let cda = try await harness.store.get(CDADocumentSample.self)
        #expect(cda.first?.document.title == expected["export_cda_xml"]?["title"]?.stringValue)
        #expect(report.documentsWritten == report.recordsRead + otherDocuments(report))
    }

    /// Documents an import writes besides top-level records: correlations, workouts, routes, the CDA,
    /// activity summaries and clinical records.
    private func otherDocuments(_ report: HealthImportReport) -> Int {
        report.correlationsByType.values.reduce(0, +) + report.workoutsByType.values.reduce(0, +) + report.workoutRoutes
            + report.cdaDocuments + report.activitySummaries + report.clinicalRecordsByType.values.reduce(0, +)
    }

    @Test func reimportingTheSameExportWritesNothing() async throws {
        let export = try await GeneratedHealthExport.make(records: 800, seed: 4, extra: ["--route-points", "3"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let importer = AppleHealthImporter(store: harness.store, batchSize: 250)
        let first = try await importer.importExport(at: export.exportFolder)
        let second = try await importer.importExport(at: export.exportFolder)
        #expect(first.documentsWritten > 0)
        #expect(second.documentsWritten == 0)
        #expect(second.documentsUnchanged == first.documentsWritten)
        #expect(try await HealthStore(store: harness.store).collection(healthKitSampleType: .quantity).getSamples().count
            == first.samplesByType.filter { $0.key.hasPrefix("HKQuantity") }.values.reduce(0, +))
    }

    @Test func aWorkoutListingOneRouteFileTwiceGetsOneRouteAndTheSecondIsListedOnce() async throws {
        let export = try await GeneratedHealthExport.make(records: 600, seed: 3, extra: ["--route-points", "4", "--quirk", "duplicate-route"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: export.root)
        #expect(report.workoutRoutes == expectedInt(export.expected["workout_routes"]) - 1)
        #expect(report.skippedByReason == [
            "a second <WorkoutRoute> for a route file the workout already lists (stored once)": 1,
        ])
        #expect(report.skipped.count == 1 && report.skipped.first?.line != nil)
        #expect(try await harness.store.get(WorkoutRouteSample.self).count == report.workoutRoutes)
    }

    @Test func everyGeneratorQuirkIsToleratedAndReported() async throws {
        let quirks = ["dtd-ios16", "vt-char", "cda-trailing-junk", "future-dates", "duplicate-route",
                      "missing-route-file", "no-me"]
        let export = try await GeneratedHealthExport.make(
            records: 3000, seed: 2, extra: ["--route-points", "4"] + quirks.flatMap { ["--quirk", $0] })
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: export.root)
        #expect(report.recordsRead == expectedInt(export.expected["records_total"]))
        #expect(report.samplesByType == expectedCounts(export.expected["records_by_type"]))
        // The generator gives its one duplicated route and its one missing route file to the same workout, and the
        // missing file replaces both references: nothing is listed twice here (see the next test).
        #expect(report.workoutRoutes == expectedInt(export.expected["workout_routes"]))
        #expect(report.skippedCount == 0)
        #expect(report.replacedControlCharacters > 0)
        #expect(report.repairedDTDDeclarations == 1)
        #expect(report.futureDatedSamples > 0)
        #expect(report.warningsByReason == ["a missing route file (route stored without locations)": 1])
        #expect(try await harness.store.get(WorkoutRouteSample.self).count == report.workoutRoutes)
        #expect(report.parserDiagnostics.contains { $0.hasPrefix("export_cda.xml") })
        #expect(report.cdaDocuments == 1)
        let lifesum = try await HealthStore(store: harness.store).collection(healthKitSampleType: .correlation).getSamples()
            .compactMap { sample -> String? in
                if case .correlation(let correlation) = sample { return correlation.source?.name } else { return nil }
            }
        #expect(lifesum.contains("Life sum"))
    }

    @Test func oldDateFormatKeepsEachRecordsOffset() async throws {
        let export = try await GeneratedHealthExport.make(records: 300, seed: 5, extra: ["--quirk", "old-date-format", "--no-routes"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: export.root)
        #expect(report.recordsRead == expectedInt(export.expected["records_total"]))
        #expect(report.skippedByReason.keys.allSatisfy { !$0.contains("unreadable") })
        let offsets = Set(try await harness.store.get(QuantitySample.self).compactMap(\.startUTCOffset))
        #expect(offsets == [-8 * 3600, -7 * 3600])
    }

    @Test func aFolderWithoutAnExportIsATypedError() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let error = await #expect(throws: CloudantError.self) {
            try await AppleHealthImporter(store: harness.store).importExport(at: empty)
        }
        #expect(error?.code == .invalidHealthExport)
    }
}

@Suite("Apple Health export.zip import")
struct AppleHealthZipImportTests {
    @Test func theZipImportsTheSameAsItsFolder() async throws {
        let export = try await GeneratedHealthExport.make(records: 600, seed: 6, extra: ["--zip", "--route-points", "3"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let both = try await ZipAndFolderImport(export)
        defer { both.remove() }
        let (fromZip, fromFolder) = (both.fromZip, both.fromFolder)
        #expect(fromZip.documentsWritten == fromFolder.documentsWritten)
        #expect(fromZip.samplesByType == fromFolder.samplesByType)
        #expect(fromZip.routePoints == fromFolder.routePoints)
        #expect(fromZip.recordsRead == export.expected["records_total"]?.numberValue?.int64Value.map(Int.init))
    }

    @Test func aFileThatIsNotAZipIsATypedError() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("bogus-\(UUID().uuidString).zip")
        try Data("not a zip".utf8).write(to: bogus)
        defer { try? FileManager.default.removeItem(at: bogus) }
        let error = await #expect(throws: CloudantError.self) {
            try await AppleHealthImporter(store: harness.store).importExport(at: bogus)
        }
        #expect(error?.code == .invalidHealthExport)
    }
}
