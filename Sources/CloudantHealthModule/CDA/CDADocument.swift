internal import CloudantCore
public import Foundation

/// The fields of an HL7 CDA R2 document, extracted with libxml2: `HKCDADocument`'s `title`, `patientName`,
/// `authorName` and `custodianName`, plus the effective time, the document type and the structured sections.
///
/// ```swift
/// let document = try CDADocument(parsing: Data(contentsOf: url))
/// document.title                                   // "Health Data Export"
/// document.sections.first { $0.kind == .vitalSigns }?.entries.count
/// ```
///
/// Parsing is safe on hostile input: see ``XMLParseLimits``.
public struct CDADocument: Codable, Hashable, Sendable {
    /// The document title.
    public var title: String?
    /// The patient's name (`recordTarget/patientRole/patient/name`): given names then family name.
    public var patientName: String?
    /// The first author's name: a person, else the authoring device's software, else the organisation.
    public var authorName: String?
    /// The custodian organisation's name.
    public var custodianName: String?
    /// The document's `effectiveTime`.
    public var effectiveTime: HL7Timestamp?
    /// The template ids and document code.
    public var documentType: CDADocumentType
    /// The structured body's sections, in document order.
    public var sections: [CDASection]
    /// What libxml2 had to recover from when parsing with ``XMLParseLimits/recover`` (empty otherwise).
    public var recoveredErrors: [String]

    /// Creates a document from extracted fields.
    public init(
        title: String?, patientName: String?, authorName: String?, custodianName: String?,
        effectiveTime: HL7Timestamp?, documentType: CDADocumentType, sections: [CDASection],
        recoveredErrors: [String] = []
    ) {
        self.title = title
        self.patientName = patientName
        self.authorName = authorName
        self.custodianName = custodianName
        self.effectiveTime = effectiveTime
        self.documentType = documentType
        self.sections = sections
        self.recoveredErrors = recoveredErrors
    }

    /// Parses and extracts a CDA document.
    /// - Throws: `CloudantError` `.invalidXML` for malformed, oversized or entity-abusing XML;
    ///   `.notCDADocument` when the root is not `ClinicalDocument` in `urn:hl7-org:v3` (the message says
    ///   what the root is, and whether it looks like a fragment of a CDA document).
    public init(parsing data: Data, limits: XMLParseLimits = XMLParseLimits()) throws {
        self = try XMLDocumentReader.withRoot(of: data, limits: limits) { root, recovered in
            var document = try CDAExtractor.document(from: root)
            document.recoveredErrors = recovered
            return document
        }
    }
}
