/// One section of a CDA document's structured body: problems, medications, allergies, results, vital
/// signs, or any other section (kept with its codes so nothing is lost).
public struct CDASection: Codable, Hashable, Sendable {
    /// Which clinical section this is, from its LOINC code or C-CDA template.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Problems (LOINC 11450-4).
        case problems
        /// Medications (LOINC 10160-0).
        case medications
        /// Allergies and intolerances (LOINC 48765-2).
        case allergies
        /// Results (LOINC 30954-2).
        case results
        /// Vital signs (LOINC 8716-3).
        case vitalSigns
        /// Any other section.
        case other
    }

    /// Which clinical section this is.
    public var kind: Kind
    /// The section's code.
    public var code: CDACode?
    /// The section's template OIDs.
    public var templateIDs: [String]
    /// The section's title as written.
    public var title: String?
    /// The coded entries (observations, medication administrations) in document order.
    public var entries: [CDAEntry]

    /// Creates a section.
    public init(kind: Kind, code: CDACode?, templateIDs: [String] = [], title: String?, entries: [CDAEntry]) {
        self.kind = kind
        self.code = code
        self.templateIDs = templateIDs
        self.title = title
        self.entries = entries
    }

    /// Section kinds by LOINC code and by C-CDA section template root (entries-required and optional).
    static func kind(code: String?, templateIDs: [String]) -> Kind {
        if let code, let kind = kindByCode[code] { return kind }
        for id in templateIDs {
            if let kind = kindByTemplate[id.split(separator: ":").first.map(String.init) ?? id] { return kind }
        }
        return .other
    }

    private static let kindByCode: [String: Kind] = [
        "11450-4": .problems, "10160-0": .medications, "48765-2": .allergies, "30954-2": .results,
        "8716-3": .vitalSigns,
    ]
    private static let kindByTemplate: [String: Kind] = [
        "2.16.840.1.113883.10.20.22.2.5": .problems, "2.16.840.1.113883.10.20.22.2.5.1": .problems,
        "2.16.840.1.113883.10.20.22.2.1": .medications, "2.16.840.1.113883.10.20.22.2.1.1": .medications,
        "2.16.840.1.113883.10.20.22.2.6": .allergies, "2.16.840.1.113883.10.20.22.2.6.1": .allergies,
        "2.16.840.1.113883.10.20.22.2.3": .results, "2.16.840.1.113883.10.20.22.2.3.1": .results,
        "2.16.840.1.113883.10.20.22.2.4": .vitalSigns, "2.16.840.1.113883.10.20.22.2.4.1": .vitalSigns,
    ]
}

/// One clinical statement of a section: an observation (a vital sign, a result, a problem, an allergy) or a
/// medication administration, with its code, value, unit and time.
public struct CDAEntry: Codable, Hashable, Sendable {
    /// What was observed or given (`Heart rate`, `Hypertension`, a medication).
    public var code: CDACode?
    /// The value as written (`"73.1"`), for physical quantities and plain values.
    public var value: String?
    /// The value's unit (`"kg"`), for physical quantities.
    public var unit: String?
    /// The value as a concept, for coded values (a diagnosis, an allergy type).
    public var valueCode: CDACode?
    /// The substance involved: the allergen of an allergy, the drug of a medication.
    public var substance: CDACode?
    /// When (the start of `effectiveTime`, or its single value).
    public var time: HL7Timestamp?
    /// The end of `effectiveTime`, when written.
    public var endTime: HL7Timestamp?

    /// Creates an entry.
    public init(
        code: CDACode?, value: String? = nil, unit: String? = nil, valueCode: CDACode? = nil,
        substance: CDACode? = nil, time: HL7Timestamp? = nil, endTime: HL7Timestamp? = nil
    ) {
        self.code = code
        self.value = value
        self.unit = unit
        self.valueCode = valueCode
        self.substance = substance
        self.time = time
        self.endTime = endTime
    }

    /// ``value`` as a number, when it is one.
    public var numericValue: Double? { value.flatMap(Double.init) }
}
