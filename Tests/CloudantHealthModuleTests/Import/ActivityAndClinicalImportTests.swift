import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Apple Health import of activity summaries and clinical records")
struct ActivityAndClinicalImportTests {
    /// Seed 11 with 40 clinical records has every resource type the generator writes, DSTU2 MedicationOrders
    /// and Patients included.
    private static let arguments = ["--clinical", "40", "--days", "60", "--route-points", "3", "--no-cda"]

    private func path(_ record: ClinicalRecordSample) -> String? { record.metadata["resourceFilePath"]?.stringValue }

    private func assertExpectedCounts(_ report: HealthImportReport, _ store: DocumentStore, _ expected: JSONValue) async throws {
        #expect(report.activitySummaries == expectedInt(expected["activity_summaries"]))
        #expect(report.clinicalRecordsByType == expectedCounts(expected["clinical_records_by_type"]))
        #expect(report.skipped.allSatisfy { $0.element != "ActivitySummary" && $0.element != "ClinicalRecord" })
        #expect(report.skippedCount == 0, "\(report.skippedByReason)")
        let summaries = try await store.get(ActivitySummarySample.self)
        #expect(summaries.count == expectedInt(expected["activity_summaries"]))
        #expect(Set(summaries.map(\.day)).count == summaries.count)
        let records = try await store.get(ClinicalRecordSample.self)
        let byResource = records.reduce(into: [String: Int]()) { $0[$1.fhirResource.resourceType, default: 0] += 1 }
        #expect(byResource == expectedCounts(expected["clinical_records_by_type"]))
    }

    /// Runs `body` with a generated export of 100 records (the suite's arguments) and a store it was imported
    /// into, and removes both afterwards.
    private func withImportedExport(_ body: (GeneratedHealthExport, HealthTestStore) async throws -> Void) async throws {
        let export = try await GeneratedHealthExport.make(records: 100, seed: 11, extra: Self.arguments)
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        _ = try await AppleHealthImporter(store: harness.store).importExport(at: export.exportFolder)
        try await body(export, harness)
    }

    @Test func aFolderImportStoresExactlyTheGeneratorsSummariesAndClinicalRecords() async throws {
        let export = try await GeneratedHealthExport.make(records: 300, seed: 11, extra: Self.arguments)
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store, batchSize: 100).importExport(at: export.exportFolder)
        try await assertExpectedCounts(report, harness.store, export.expected)
        let clinical = expectedCounts(export.expected["clinical_records_by_type"]).values.reduce(0, +)
        #expect(report.documentsWritten == report.recordsRead + report.correlationsByType.values.reduce(0, +)
            + report.workoutsByType.values.reduce(0, +) + report.workoutRoutes + report.activitySummaries + clinical)
    }

    @Test func aZipImportStoresTheSameDocumentsAsItsFolder() async throws {
        let export = try await GeneratedHealthExport.make(records: 300, seed: 11, extra: Self.arguments + ["--zip"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let both = try await ZipAndFolderImport(export)
        defer { both.remove() }
        let (fromZip, fromFolder) = (both.fromZip, both.fromFolder)
        try await assertExpectedCounts(fromZip, both.zipped.store, export.expected)
        #expect(fromZip.clinicalRecordsByType == fromFolder.clinicalRecordsByType)
        #expect(try await Set(both.zipped.store.get(ClinicalRecordSample.self)) == Set(both.unzipped.store.get(ClinicalRecordSample.self)))
        #expect(try await Set(both.zipped.store.get(ActivitySummarySample.self)) == Set(both.unzipped.store.get(ActivitySummarySample.self)))
    }

    @Test func reimportingFromTheFolderOrTheZipAddsNoSummaryOrClinicalRecord() async throws {
        let export = try await GeneratedHealthExport.make(records: 200, seed: 11, extra: Self.arguments + ["--zip"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let importer = AppleHealthImporter(store: harness.store, batchSize: 64)
        let first = try await importer.importExport(at: export.exportFolder)
        let again = try await importer.importExport(at: export.exportFolder)
        let fromZip = try await importer.importExport(at: export.zipFile)
        #expect(first.documentsWritten > 0)
        #expect(again.documentsWritten == 0 && fromZip.documentsWritten == 0)
        #expect(again.documentsUnchanged == first.documentsWritten)
        #expect(fromZip.documentsUnchanged == first.documentsWritten)
        #expect(again.activitySummaries == first.activitySummaries)
        try await assertExpectedCounts(fromZip, harness.store, export.expected)
    }

    @Test func anActivitySummaryKeepsItsDayEnergyWithItsUnitAndEveryGoal() async throws {
        try await withImportedExport { export, harness in
            let xml = try String(contentsOf: export.exportFolder.appendingPathComponent("export.xml"), encoding: .utf8)
            let line = try #require(xml.split(separator: "\n").first { $0.contains("<ActivitySummary ") })
            let written = Self.attributes(of: String(line))
            let day = try #require(CalendarDay(parsing: written["dateComponents"] ?? ""))
            let stored = try await harness.store.get(ActivitySummarySample.self, id: ActivitySummarySample.uuid(for: day))
            #expect(stored.day == day)
            #expect(stored.typeIdentifier == ActivitySummarySample.activitySummaryTypeIdentifier)
            let energy = try #require(stored.activeEnergyBurned)
            #expect(energy.unit == (try HealthUnit(parsing: "Cal")))
            #expect(energy.value == Double(written["activeEnergyBurned"] ?? ""))
            #expect(try energy.doubleValue(for: .kilocalorie) == energy.value)
            #expect(try stored.activeEnergyBurnedGoal?.doubleValue(for: .kilocalorie) == 600)
            #expect(stored.appleExerciseTime == HealthQuantity(value: Double(written["appleExerciseTime"] ?? "") ?? -1, unit: .minute))
            #expect(stored.appleExerciseTimeGoal == HealthQuantity(value: 30, unit: .minute))
            #expect(stored.appleStandHours == HealthQuantity(value: Double(written["appleStandHours"] ?? "") ?? -1, unit: .count))
            #expect(stored.appleStandHoursGoal == HealthQuantity(value: 12, unit: .count))
            #expect(stored.appleMoveTime == HealthQuantity(value: 0, unit: .minute))
            #expect(stored.appleMoveTimeGoal == HealthQuantity(value: 0, unit: .minute))
            #expect(stored.startDate == day.floatingInterval.start && stored.endDate == day.floatingInterval.end)
            #expect(stored.startUTCOffset == nil)
        }
    }

    @Test func anR4ObservationRoundTripsItsResourceValueQuantityAndLOINCCode() async throws {
        try await withImportedExport { export, harness in
            let records = try await harness.store.get(ClinicalRecordSample.self)
            let observation = try #require(records.first {
                $0.fhirResource.resourceType == "Observation" && $0.fhirResource.fhirRelease == .r4
            })
            let filePath = try #require(path(observation))
            let file = try JSONValue(parsing: Data(contentsOf: export.exportFolder.appendingPathComponent(String(filePath.dropFirst()))))
            #expect(observation.fhirResource.data == file)
            #expect(observation.fhirResource.data["valueQuantity"]?["value"] == file["valueQuantity"]?["value"])
            #expect(observation.fhirResource.data["valueQuantity"]?["unit"] == file["valueQuantity"]?["unit"])
            let loinc = observation.fhirResource.data["code"]?["coding"]?.arrayValue?.first
            #expect(loinc?["system"] == "http://loinc.org")
            #expect(loinc?["code"] == file["code"]?["coding"]?.arrayValue?.first?["code"])
            #expect(observation.typeIdentifier == ClinicalTypeIdentifier.labResultRecord)
            #expect(observation.displayName == file["code"]?["text"]?.stringValue)
            #expect(observation.fhirResource.identifier == file["id"]?.stringValue)
            #expect(observation.fhirResource.fhirVersion == "4.0.1")
            #expect(observation.fhirResource.sourceURL?.absoluteString.contains("/R4/Observation/") == true)
            let effective = try #require(ISO8601DateFormatter().date(from: file["effectiveDateTime"]?.stringValue ?? ""))
            #expect(observation.startDate == effective && observation.startUTCOffset == 0)
            #expect(observation.receivedDate > observation.startDate || observation.receivedDate == observation.startDate)
            #expect(["Riverside Health", "St. Mary’s Medical Center", "Kaiser & Partners Clinic"].contains(observation.source?.name ?? ""))
        }
    }

    @Test func aDSTU2MedicationOrderIsAMedicationRecordDatedWhenItWasWritten() async throws {
        try await withImportedExport { export, harness in
            let orders = try await harness.store.get(ClinicalRecordSample.self).filter { $0.fhirResource.resourceType == "MedicationOrder" }
            #expect(orders.count == expectedCounts(export.expected["clinical_records_by_type"])["MedicationOrder"])
            let order = try #require(orders.first)
            #expect(order.typeIdentifier == ClinicalTypeIdentifier.medicationRecord)
            #expect(order.fhirResource.fhirRelease == .dstu2 && order.fhirResource.fhirVersion == "1.0.2")
            #expect(order.displayName == "Lisinopril 10 mg")
            let written = try #require(ISO8601DateFormatter().date(from: order.fhirResource.data["dateWritten"]?.stringValue ?? ""))
            #expect(order.startDate == written)
            #expect(order.fhirResource.data["medicationCodeableConcept"]?["coding"]?.arrayValue?.first?["code"] == "314076")

            // A resource HealthKit has no clinical type for is kept, under the store's own "other" type.
            let patients = try await HealthStore(store: harness.store).samples(ofType: ClinicalTypeIdentifier.otherRecord)
            #expect(patients.count == expectedCounts(export.expected["clinical_records_by_type"])["Patient"])
            #expect(patients.allSatisfy { if case .clinicalRecord(let record) = $0 { record.fhirResource.resourceType == "Patient" } else { false } })
        }
    }

    @Test func missingMalformedAndMismatchedResourceFilesAreReportedWithTheirReason() async throws {
        let export = try await GeneratedHealthExport.make(records: 100, seed: 11, extra: Self.arguments)
        defer { try? FileManager.default.removeItem(at: export.root) }
        let folder = export.exportFolder.appendingPathComponent("clinical-records")
        let observations = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("Observation-") }.sorted()
        try #require(observations.count >= 3)
        try FileManager.default.removeItem(at: folder.appendingPathComponent(observations[0]))
        try Data(#"{"resourceType": "Observation", "valueQuantity": {"#.utf8).write(to: folder.appendingPathComponent(observations[1]))
        try Data(#"{"resourceType": "Condition", "id": "x"}"#.utf8).write(to: folder.appendingPathComponent(observations[2]))
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: export.exportFolder)

        func reason(for name: String) -> String? {
            // The element is the <ClinicalRecord>; the file names export.xml and the resource file it points to.
            report.skipped.first { $0.element == "ClinicalRecord" && $0.file?.hasSuffix(" → /clinical-records/" + name) == true }?.reason
        }
        #expect(reason(for: observations[0]) == "a missing FHIR resource file")
        #expect(reason(for: observations[1]) == "a FHIR resource file that is not valid JSON")
        #expect(reason(for: observations[2])?.contains("resourceType disagrees") == true)
        #expect(report.skipped.filter { $0.element == "ClinicalRecord" }.count == 3)
        #expect(report.skipped.filter { $0.element == "ClinicalRecord" }.allSatisfy { $0.line != nil })
        var expected = expectedCounts(export.expected["clinical_records_by_type"])
        expected["Observation", default: 0] -= 3
        #expect(report.clinicalRecordsByType == expected)
        #expect(try await harness.store.get(ClinicalRecordSample.self).count == expected.values.reduce(0, +))
    }

    @Test func aResourcePathLeavingTheExportFolderIsRefusedEvenWhenTheFileExists() async throws {
        let export = try await GeneratedHealthExport.make(records: 50, seed: 11, extra: Self.arguments)
        defer { try? FileManager.default.removeItem(at: export.root) }
        let outside = export.root.appendingPathComponent("outside.json")
        try Data(#"{"resourceType": "Observation", "id": "stolen", "effectiveDateTime": "2024-01-01T00:00:00Z"}"#.utf8)
            .write(to: outside)
        let link = "Observation-00000000-0000-4000-8000-000000000000.json"
        try FileManager.default.createSymbolicLink(
            at: export.exportFolder.appendingPathComponent("clinical-records/" + link), withDestinationURL: outside)
        let escapes = ["/clinical-records/../../etc/passwd", "/clinical-records/../../outside.json", "/clinical-records/" + link]
        let exportXML = export.exportFolder.appendingPathComponent("export.xml")
        var xml = try String(contentsOf: exportXML, encoding: .utf8)
        let elements = escapes.map { path in
            #" <ClinicalRecord type="Observation" identifier="stolen" sourceName="Elsewhere" "#
                + #"sourceURL="https://example.org/R4/Observation/stolen" fhirVersion="4.0.1" "#
                + #"receivedDate="2024-05-01 12:00:00 -0700" resourceFilePath="\#(path)"/>"# + "\n"
        }.joined()
        xml = xml.replacingOccurrences(of: "</HealthData>", with: elements + "</HealthData>")
        try Data(xml.utf8).write(to: exportXML)
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: export.exportFolder)

        for path in escapes {
            #expect(report.skipped.first { $0.file?.hasSuffix(" → " + path) == true }?.reason
                == "a resourceFilePath that leaves the export folder (refused)")
        }
        #expect(report.clinicalRecordsByType == expectedCounts(export.expected["clinical_records_by_type"]))
        #expect(try await harness.store.get(ClinicalRecordSample.self).allSatisfy { $0.source?.name != "Elsewhere" })
    }

    /// `name="value"` pairs of one XML start tag (the generator escapes no quotes in these attributes).
    private static func attributes(of tag: String) -> [String: String] {
        var result: [String: String] = [:]
        for part in tag.split(separator: " ") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else { continue }
            result[String(pieces[0])] = pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"/>"))
        }
        return result
    }
}
