import CloudantCore
import CloudantHealthModule
import Foundation
import Testing

@Suite("CDA header details: device authors and document templates")
struct CDAHeaderDetailsTests {
    /// A minimal C-CDA header with the given `templateId`s and `author` content.
    private static func document(templates: [String], author: String = "") -> Data {
        let ids = templates.map { id -> String in
            let parts = id.split(separator: ":", maxSplits: 1)
            let root = parts.first.map(String.init) ?? id
            return parts.count == 2 ? #"<templateId root="\#(root)" extension="\#(parts[1])"/>"# : #"<templateId root="\#(root)"/>"#
        }.joined()
        return Data(#"""
            <ClinicalDocument xmlns="urn:hl7-org:v3">\#(ids)<title>T</title>
            <author><time value="20240601"/><assignedAuthor><id root="1.2.3"/>\#(author)</assignedAuthor></author>
            </ClinicalDocument>
            """#.utf8)
    }

    private static func device(model: String?, software: String?) -> String {
        "<assignedAuthoringDevice>" + (model.map { "<manufacturerModelName>\($0)</manufacturerModelName>" } ?? "")
            + (software.map { "<softwareName>\($0)</softwareName>" } ?? "") + "</assignedAuthoringDevice>"
    }

    @Test(arguments: [
        ("Epic", "EpicCare Ambulatory 2023", "Epic EpicCare Ambulatory 2023"),
        ("Cerner Millennium", nil, "Cerner Millennium"),
        (nil, "athenaClinicals", "athenaClinicals"),
        ("NextGen", "NextGen", "NextGen"),
    ] as [(String?, String?, String)])
    func aDeviceAuthorIsNamedByModelThenSoftwareOnceEach(_ model: String?, _ software: String?, _ expected: String) throws {
        let header = Self.document(
            templates: ["2.16.840.1.113883.10.20.22.1.1"], author: Self.device(model: model, software: software))
        #expect(try CDADocument(parsing: header).authorName == expected)
    }

    @Test func aPersonAuthorStillWinsOverADeviceAndAnEmptyDeviceFallsBackToTheOrganisation() throws {
        let person = Self.document(
            templates: [], author: "<assignedPerson><name><given>Henry</given><family>Seven</family></name></assignedPerson>"
                + Self.device(model: "Epic", software: "EpicCare"))
        #expect(try CDADocument(parsing: person).authorName == "Henry Seven")
        let empty = Self.document(
            templates: [], author: "<assignedAuthoringDevice/><representedOrganization><name>Good Health Clinic</name>"
                + "</representedOrganization>")
        #expect(try CDADocument(parsing: empty).authorName == "Good Health Clinic")
    }

    /// C-CDA R2.1 volume 2: every document-level template, with the R2.1 extension dates as real documents
    /// write them.
    @Test(arguments: [
        ("2.16.840.1.113883.10.20.22.1.2:2015-08-01", "Continuity of Care Document"),
        ("2.16.840.1.113883.10.20.22.1.3:2015-08-01", "History and Physical"),
        ("2.16.840.1.113883.10.20.22.1.4:2015-08-01", "Consultation Note"),
        ("2.16.840.1.113883.10.20.22.1.5:2015-08-01", "Diagnostic Imaging Report"),
        ("2.16.840.1.113883.10.20.22.1.6:2015-08-01", "Procedure Note"),
        ("2.16.840.1.113883.10.20.22.1.7:2015-08-01", "Operative Note"),
        ("2.16.840.1.113883.10.20.22.1.8:2015-08-01", "Discharge Summary"),
        ("2.16.840.1.113883.10.20.22.1.9:2015-08-01", "Progress Note"),
        ("2.16.840.1.113883.10.20.22.1.10:2015-08-01", "Unstructured Document"),
        ("2.16.840.1.113883.10.20.22.1.13:2015-08-01", "Transfer Summary"),
        ("2.16.840.1.113883.10.20.22.1.14:2015-08-01", "Referral Note"),
        ("2.16.840.1.113883.10.20.22.1.15:2015-08-01", "Care Plan"),
    ])
    func everyDocumentTypeOfCCDAR21IsNamedOverItsHeader(_ template: String, _ name: String) throws {
        let header = Self.document(templates: ["2.16.840.1.113883.10.20.22.1.1:2015-08-01", template])
        #expect(try CDADocument(parsing: header).documentType.templateName == name)
    }

    @Test func theHeadersAreNamedWhenNoDocumentTypeFollowsThem() throws {
        let patientGenerated = Self.document(templates: ["2.16.840.1.113883.10.20.29.1:2015-08-01"])
        #expect(try CDADocument(parsing: patientGenerated).documentType.templateName == "Patient Generated Document")
        let realm = Self.document(templates: ["2.16.840.1.113883.10.20.22.1.1:2015-08-01"])
        #expect(try CDADocument(parsing: realm).documentType.templateName == "US Realm Header")
        let unknown = Self.document(templates: ["1.2.3.4.5"])
        #expect(try CDADocument(parsing: unknown).documentType.templateName == nil)
        #expect(CDADocumentType.knownTemplates.count == 14)
    }
}
