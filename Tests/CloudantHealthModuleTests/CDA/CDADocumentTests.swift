import CloudantCore
import CloudantHealthModule
import CloudantTestSupport
import Foundation
import Testing

@Suite("CDA documents")
struct CDADocumentTests {
    /// A C-CDA R2.1 Continuity of Care Document with one entry in each kind of section; the CDA benchmark
    /// reads the same file.
    static let ccd = (try? String(
        contentsOf: RepositoryFiles.fixtures("CDA").appendingPathComponent("continuity-of-care.xml"),
        encoding: .utf8)) ?? ""

    @Test func extractsHealthKitsHeaderFieldsFromACCD() throws {
        let document = try CDADocument(parsing: Data(Self.ccd.utf8))
        #expect(document.title == "Continuity of Care Document")
        #expect(document.patientName == "Ms. Jane Q Appleseed")
        #expect(document.authorName == "Henry Seven")
        #expect(document.custodianName == "Community Health & Hospitals")
        #expect(document.effectiveTime?.precision == .fraction)
        #expect(document.effectiveTime?.utcOffset == 5 * 3600 + 1800)
        #expect(document.effectiveTime?.date == Date(timeIntervalSince1970: 1_717_227_000.25))
        #expect(document.documentType.code?.code == "34133-9")
        #expect(document.documentType.templateName == "Continuity of Care Document")
        #expect(document.documentType.templateIDs.first == "2.16.840.1.113883.10.20.22.1.1:2015-08-01")
    }

    @Test func extractsProblemsMedicationsAllergiesResultsAndVitalSigns() throws {
        let sections = try CDADocument(parsing: Data(Self.ccd.utf8)).sections
        #expect(sections.map(\.kind) == [.problems, .medications, .allergies, .results, .vitalSigns])
        #expect(sections[0].entries.first?.valueCode?.displayName == "Hypertension")
        #expect(sections[0].entries.first?.time?.precision == .month)
        #expect(sections[1].entries.first?.substance?.displayName == "Amlodipine 5 MG")
        #expect(sections[2].entries.first?.substance?.displayName == "Penicillin G")
        let glucose = try #require(sections[3].entries.first)
        #expect(glucose.numericValue == 99 && glucose.unit == "mg/dL" && glucose.time?.precision == .minute)
        let pulse = try #require(sections[4].entries.first)
        #expect(pulse.code?.displayName == "Heart rate" && pulse.value == "72" && pulse.unit == "/min")
        #expect(pulse.time?.utcOffset == -(3 * 3600 + 1800))
    }

    @Test func readsTheAppleHealthExportCDAWhoseSectionsHaveNoStructuredBody() async throws {
        let folder = try await GeneratedHealthExport.make(records: 40, extra: ["--cda-entries", "3"])
        defer { try? FileManager.default.removeItem(at: folder.root) }
        let document = try CDADocument(parsing: Data(contentsOf: folder.exportFolder.appendingPathComponent("export_cda.xml")))
        let cda = try #require(folder.expected["export_cda_xml"]?.objectValue)
        #expect(document.title == cda["title"]?.stringValue)
        #expect(document.effectiveTime?.text == cda["effective_time"]?.stringValue)
        #expect(document.patientName == nil && document.authorName == nil && document.custodianName == nil)
        let vitals = document.sections.filter { $0.kind == .vitalSigns }
        #expect(vitals.count == 1)
        #expect(vitals.first?.entries.isEmpty == false)
    }

    @Test func textGathersCDATAAndNestedElementsAndNamesMatchWhateverThePrefix() throws {
        let xml = """
            <cda:ClinicalDocument xmlns:cda="urn:hl7-org:v3">
              <cda:title>  Care <![CDATA[& Plan]]><cda:b> Summary</cda:b>\n</cda:title>
              <cda:recordTarget><cda:patientRole><cda:patient><cda:name> Jane Appleseed </cda:name></cda:patient>
              </cda:patientRole></cda:recordTarget>
              <cda:component><cda:section><cda:code code="8716-3"/><cda:entry><cda:observation>
                <cda:code code="8867-4"><cda:originalText>Pulse</cda:originalText></cda:code>
                <cda:value>  61 </cda:value>
              </cda:observation></cda:entry></cda:section></cda:component>
            </cda:ClinicalDocument>
            """
        let document = try CDADocument(parsing: Data(xml.utf8))
        #expect(document.title == "Care & Plan Summary")
        #expect(document.patientName == "Jane Appleseed")
        let entry = try #require(document.sections.first?.entries.first)
        #expect(document.sections.first?.kind == .vitalSigns)
        #expect(entry.code?.displayName == "Pulse" && entry.value == "61" && entry.unit == nil)
    }

    @Test(arguments: [String.Encoding.utf8, .isoLatin1, .utf16LittleEndian])
    func readsLargeDocumentsInTheirDeclaredEncodingAcrossInputChunks(_ encoding: String.Encoding) throws {
        // libxml2 reads the input a few kilobytes at a time: characters and names must survive every boundary.
        let name = encoding == .utf8 ? "UTF-8" : encoding == .isoLatin1 ? "ISO-8859-1" : "UTF-16"
        var xml = #"<?xml version="1.0" encoding="\#(name)"?><ClinicalDocument xmlns="urn:hl7-org:v3">"#
        xml += "<title>Données de santé</title><component><section><code code=\"8716-3\"/>"
        for index in 0..<3_000 {
            xml += #"<entry><observation><code code="8867-4" displayName="Fréquence cardiaque \#(index)"/>"#
            xml += #"<value value="\#(60 + index % 40)" unit="/min"/></observation></entry>"#
        }
        xml += "</section></component></ClinicalDocument>"
        let data = try #require(xml.data(using: encoding))
        let document = try CDADocument(parsing: encoding == .utf16LittleEndian ? Data([0xFF, 0xFE]) + data : data)
        #expect(document.title == "Données de santé")
        let entries = try #require(document.sections.first?.entries)
        #expect(entries.count == 3_000)
        #expect(entries.enumerated().allSatisfy { $1.code?.displayName == "Fréquence cardiaque \($0)" })
        #expect(entries.last?.value == "99" && entries.last?.unit == "/min")
    }

    @Test func anotherRootIsATypedErrorSayingWhatTheRootIs() {
        let error = #expect(throws: CloudantError.self) {
            try CDADocument(parsing: Data("<html><body/></html>".utf8))
        }
        #expect(error?.code == .notCDADocument)
        #expect(error?.message.contains("<html>") == true)
    }

    @Test func aFragmentIsATypedErrorSayingItIsAFragment() {
        let error = #expect(throws: CloudantError.self) {
            try CDADocument(parsing: Data(#"<section xmlns="urn:hl7-org:v3"><title>Problems</title></section>"#.utf8))
        }
        #expect(error?.code == .notCDADocument)
        #expect(error?.message.contains("fragment") == true)
    }

    @Test func aClinicalDocumentOutsideTheHL7NamespaceIsNotCDA() {
        let error = #expect(throws: CloudantError.self) { try CDADocument(parsing: Data("<ClinicalDocument/>".utf8)) }
        #expect(error?.code == .notCDADocument)
        #expect(error?.message.contains("urn:hl7-org:v3") == true)
    }

    @Test func trailingContentFailsStrictlyAndIsReportedWhenRecovering() throws {
        let junk = Data((Self.ccd + "\n<component><section/></component>").utf8)
        let error = #expect(throws: CloudantError.self) { try CDADocument(parsing: junk) }
        #expect(error?.code == .invalidXML)
        let recovered = try CDADocument(parsing: junk, limits: XMLParseLimits(recover: true))
        #expect(recovered.title == "Continuity of Care Document")
        #expect(recovered.recoveredErrors.first?.contains("Extra content") == true)
    }

    @Test func sampleKeepsTheXMLAndUsesTheEffectiveTimeAndOffset() throws {
        let sample = try CDADocumentSample(uuid: "D0C00000-0000-4000-8000-000000000001", xml: Data(Self.ccd.utf8))
        #expect(sample.documentXML == Self.ccd)
        #expect(sample.startUTCOffset == 19800)
        #expect(sample.typeIdentifier == "HKDocumentTypeIdentifierCDA")
    }
}
