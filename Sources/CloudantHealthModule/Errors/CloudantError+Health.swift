public import CloudantCore

/// The health module's error codes: units, exports, CDA and GPX documents, each with its category.
extension CloudantError.Code {
    /// A unit string HealthKit would not accept (`"kg/"`, `"foo"`, a `<…>` molar mass that is not a positive
    /// number). The error's `field` names the unit and its `position` the offending character.
    ///
    /// Write the unit the way HealthKit prints it, for example `count/min`, `mg/dL` or `mmol<180.15588>/L`.
    public static let invalidUnit = Self("invalidUnit", category: .invalidInput)

    /// Two units measure different things (`kg` and `m`), so a value cannot be converted between them.
    ///
    /// Convert only between units of one dimension; a mass converts to a mole amount only when the mole
    /// unit carries a molar mass (`mmol<180.15588>`).
    public static let incompatibleUnits = Self("incompatibleUnits", category: .invalidInput)

    /// XML that is not well formed, or that libxml2 refused for safety (an external entity, an entity
    /// expansion beyond libxml2's amplification limit, input over the size cap).
    public static let invalidXML = Self("invalidXML", category: .invalidInput)

    /// Well-formed XML that is not an HL7 CDA document: another root element, a fragment, or a
    /// `ClinicalDocument` outside the `urn:hl7-org:v3` namespace. The message says which.
    public static let notCDADocument = Self("notCDADocument", category: .invalidInput)

    /// Well-formed XML that is not a GPX 1.0/1.1 document, or a track point without a valid position or time.
    public static let invalidGPX = Self("invalidGPX", category: .invalidInput)

    /// An HL7 `TS` timestamp (`20240601130000.250-0700`) that is malformed or out of range.
    public static let invalidTimestamp = Self("invalidTimestamp", category: .invalidInput)

    /// An Apple Health export that cannot be read at all (no `export.xml`, an unreadable archive).
    /// Individual bad records never raise this: the import report lists them.
    public static let invalidHealthExport = Self("invalidHealthExport", category: .invalidInput)
}
