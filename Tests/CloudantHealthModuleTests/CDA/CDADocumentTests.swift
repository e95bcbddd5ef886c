import CloudantCore
import CloudantHealthModule
import Foundation
import Testing

@Suite("CDA documents")
struct CDADocumentTests {
    static let ccd = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
          <typeId root="2.16.840.1.113883.1.3" extension="POCD_HD000040"/>
          <templateId root="2.16.840.1.113883.10.20.22.1.1" extension="2015-08-01"/>
          <templateId root="2.16.840.1.113883.10.20.22.1.2" extension="2015-08-01"/>
          <code code="34133-9" codeSystem="2.16.840.1.113883.6.1" displayName="Summary of episode note"/>
          <title>Continuity of Care Document</title>
          <effectiveTime value="20240601130000.250+0530"/>
          <recordTarget><patientRole><patient>
            <name use="L"><prefix>Ms.</prefix><given>Jane</given><given>Q</given><family>Appleseed</family></name>
          </patient></patientRole></recordTarget>
          <author><time value="20240601"/><assignedAuthor>
            <assignedPerson><name><given>Henry</given><family>Seven</family></name></assignedPerson>
          </assignedAuthor></author>
          <custodian><assignedCustodian><representedCustodianOrganization>
            <name>Community Health &amp; Hospitals</name>
          </representedCustodianOrganization></assignedCustodian></custodian>
          <component><structuredBody>
            <component><section>
              <templateId root="2.16.840.1.113883.10.20.22.2.5.1"/>
              <code code="11450-4" codeSystem="2.16.840.1.113883.6.1"/>
              <title>Problems</title>
              <entry><act><entryRelationship><observation>
                <code code="55607006" codeSystem="2.16.840.1.113883.6.96" displayName="Problem"/>
                <effectiveTime><low value="201001"/></effectiveTime>
                <value xsi:type="CD" code="38341003" codeSystem="2.16.840.1.113883.6.96" displayName="Hypertension"/>
              </observation></entryRelationship></act></entry>
            </section></component>
            <component><section>
              <code code="10160-0" codeSystem="2.16.840.1.113883.6.1"/>
              <title>Medications</title>
              <entry><substanceAdministration>
                <effectiveTime xsi:type="IVL_TS"><low value="20231001"/></effectiveTime>
                <consumable><manufacturedProduct><manufacturedMaterial>
                  <code code="197361" codeSystem="2.16.840.1.113883.6.88" displayName="Amlodipine 5 MG"/>
                </manufacturedMaterial></manufacturedProduct></consumable>
              </substanceAdministration></entry>
            </section></component>
            <component><section>
              <code code="48765-2" codeSystem="2.16.840.1.113883.6.1"/>
              <title>Allergies</title>
              <entry><act><entryRelationship><observation>
                <code code="ASSERTION" codeSystem="2.16.840.1.113883.5.4"/>
                <value xsi:type="CD" code="416098002" displayName="Drug allergy"/>
                <participant><participantRole><playingEntity>
                  <code code="7980" codeSystem="2.16.840.1.113883.6.88" displayName="Penicillin G"/>
                </playingEntity></participantRole></participant>
              </observation></entryRelationship></act></entry>
            </section></component>
            <component><section>
              <code code="30954-2" codeSystem="2.16.840.1.113883.6.1"/>
              <title>Results</title>
              <entry><organizer><component><observation>
                <code code="2345-7" codeSystem="2.16.840.1.113883.6.1" displayName="Glucose"/>
                <effectiveTime value="202405011015"/>
                <value xsi:type="PQ" value="99" unit="mg/dL"/>
              </observation></component></organizer></entry>
            </section></component>
            <component><section>
              <code code="8716-3" codeSystem="2.16.840.1.113883.6.1"/>
              <title>Vital Signs</title>
              <entry><organizer><component><observation>
                <code code="8867-4" codeSystem="2.16.840.1.113883.6.1" displayName="Heart rate"/>
                <effectiveTime value="20240601120000-0330"/>
                <value xsi:type="PQ" value="72" unit="/min"/>
              </observation></component></organizer></entry>
            </section></component>
          </structuredBody></component>
        </ClinicalDocument>
        """

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

    @Test func readsTheAppleHealthExportCDAWhoseSectionsHaveNoStructuredBody() throws {
        let folder = try GeneratedExport.make(records: 40, extra: ["--cda-entries", "3"])
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
