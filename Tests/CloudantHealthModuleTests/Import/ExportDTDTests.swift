import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

/// The import sets a DTD without entity declarations aside once the root starts (libxml2 would look up every
/// attribute in it as a possible ID); these tests hold it to changing nothing about what is imported.
@Suite("Exports with and without an internal DTD import the same documents")
struct ExportDTDTests {
    private static let appleDTD = """
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST HealthData locale CDATA #REQUIRED>
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate value CDATA #REQUIRED>
        <!ELEMENT Me EMPTY>
        <!ATTLIST Me HKCharacteristicTypeIdentifierDateOfBirth CDATA #REQUIRED>
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry key CDATA #REQUIRED value CDATA #REQUIRED>
        ]>
        """

    private static func export(doctype: String, sourceName: String = "Ann’s iPhone") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        \(doctype)
        <HealthData locale="en_US">
         <ExportDate value="2024-06-02 09:00:00 -0700"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-01-01"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="\(sourceName)" sourceVersion="17.5" unit="count" \
        creationDate="2024-06-01 13:05:00 -0700" startDate="2024-06-01 13:00:00 -0700" endDate="2024-06-01 13:05:00 -0700" value="412"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" \
        startDate="2024-06-01 13:10:00 -0700" endDate="2024-06-01 13:10:00 -0700" value="71.5">
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
         </Record>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" \
        startDate="2024-06-01 23:00:00 -0700" endDate="2024-06-02 06:30:00 -0700" value="HKCategoryValueSleepAnalysisAsleepCore"/>
        </HealthData>
        """
    }

    /// Imports `text` as `export.xml` into a fresh store; returns the report and every stored body by id.
    private func imported(_ text: String) async throws -> (HealthImportReport, [String: JSONValue]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dtd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("export.xml")
        try Data(text.utf8).write(to: file)
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: file)
        var bodies: [String: JSONValue] = [:]
        var options = AllDocsOptions()
        options.includeDocs = true
        for row in try await harness.store.allDocs(options).rows {
            guard let id = row["id"]?.stringValue, !id.hasPrefix("_"), case .object(var body)? = row["doc"] else { continue }
            body.removeValue(forKey: "_rev")
            bodies[id] = .object(body)
        }
        return (report, bodies)
    }

    @Test("Apple's DTD, no DTD and a DTD of declarations only give identical documents and counts")
    func declarationsOnlyChangeNothing() async throws {
        let (withDTD, apple) = try await imported(Self.export(doctype: Self.appleDTD))
        let (withoutDTD, bare) = try await imported(Self.export(doctype: ""))
        #expect(apple.count == 3)
        #expect(apple == bare)
        #expect(withDTD.samplesByType == withoutDTD.samplesByType)
        #expect(withDTD.metadataEntries == 1 && withoutDTD.metadataEntries == 1)
        #expect(withDTD.parserDiagnosticCount == 0 && withoutDTD.parserDiagnosticCount == 0)
        #expect(withDTD.skipped.isEmpty && withoutDTD.skipped.isEmpty)
    }

    @Test("A DTD that declares an entity stays with the document, and the entity is never expanded")
    func declaredEntitiesStayUnexpanded() async throws {
        let doctype = Self.appleDTD.replacingOccurrences(
            of: "<!ELEMENT MetadataEntry EMPTY>", with: "<!ENTITY owner \"EXPANDED\">\n<!ELEMENT MetadataEntry EMPTY>")
        let (report, bodies) = try await imported(Self.export(doctype: doctype, sourceName: "Phone &owner; one"))
        #expect(report.recordsRead == 3)
        #expect(bodies.count == 3)
        let steps = bodies.values.first { $0["typeIdentifier"]?.stringValue == "HKQuantityTypeIdentifierStepCount" }
        let name = steps?["source"]?["name"]?.stringValue
        #expect(name != nil)
        #expect(name?.contains("EXPANDED") == false)
    }
}
