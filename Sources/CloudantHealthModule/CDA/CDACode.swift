/// A coded concept in a CDA document (`CD`/`CE`): `code`, `codeSystem` OID and `displayName`.
public struct CDACode: Codable, Hashable, Sendable {
    /// The code (`"8867-4"`).
    public var code: String?
    /// The code system OID (`"2.16.840.1.113883.6.1"` is LOINC).
    public var codeSystem: String?
    /// The code system's name, when written (`"LOINC"`).
    public var codeSystemName: String?
    /// The human-readable name (`"Heart rate"`).
    public var displayName: String?

    /// Creates a code.
    public init(code: String? = nil, codeSystem: String? = nil, codeSystemName: String? = nil, displayName: String? = nil) {
        self.code = code
        self.codeSystem = codeSystem
        self.codeSystemName = codeSystemName
        self.displayName = displayName
    }
}

/// What kind of CDA document this is: its `templateId`s and its document `code`.
public struct CDADocumentType: Codable, Hashable, Sendable {
    /// The template OIDs (with `:extension` when one is written), in document order.
    public var templateIDs: [String]
    /// The document type code (LOINC `34133-9` for a Summary of Episode Note).
    public var code: CDACode?
    /// A name for the best-known C-CDA template present (`"Continuity of Care Document"`), if any.
    public var templateName: String?

    /// Creates a document type.
    public init(templateIDs: [String], code: CDACode?, templateName: String? = nil) {
        self.templateIDs = templateIDs
        self.code = code
        self.templateName = templateName
    }

    /// Every document-level template of C-CDA R2.1 (HL7 C-CDA implementation guide, volume 2, section 1):
    /// the two headers and the twelve document types built on them.
    public static let knownTemplates: [String: String] = [
        "2.16.840.1.113883.10.20.22.1.1": "US Realm Header",
        "2.16.840.1.113883.10.20.22.1.2": "Continuity of Care Document",
        "2.16.840.1.113883.10.20.22.1.3": "History and Physical",
        "2.16.840.1.113883.10.20.22.1.4": "Consultation Note",
        "2.16.840.1.113883.10.20.22.1.5": "Diagnostic Imaging Report",
        "2.16.840.1.113883.10.20.22.1.6": "Procedure Note",
        "2.16.840.1.113883.10.20.22.1.7": "Operative Note",
        "2.16.840.1.113883.10.20.22.1.8": "Discharge Summary",
        "2.16.840.1.113883.10.20.22.1.9": "Progress Note",
        "2.16.840.1.113883.10.20.22.1.10": "Unstructured Document",
        "2.16.840.1.113883.10.20.22.1.13": "Transfer Summary",
        "2.16.840.1.113883.10.20.22.1.14": "Referral Note",
        "2.16.840.1.113883.10.20.22.1.15": "Care Plan",
        // The header a document written by the patient (or their app) uses instead of the US Realm Header.
        "2.16.840.1.113883.10.20.29.1": "Patient Generated Document",
    ]

    /// The headers: a document names one of them and, usually, a document type built on it, and the
    /// document type is the better name.
    static let headerTemplates: Set<String> = ["2.16.840.1.113883.10.20.22.1.1", "2.16.840.1.113883.10.20.29.1"]
}
