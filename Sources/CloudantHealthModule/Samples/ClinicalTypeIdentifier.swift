/// HealthKit's clinical record type identifiers (`HKClinicalTypeIdentifier`), and which one a FHIR resource
/// belongs to.
///
/// ```swift
/// let labs = try await health.samples(ofType: ClinicalTypeIdentifier.labResultRecord)
/// ClinicalTypeIdentifier.forResource(type: "MedicationOrder")   // "HKClinicalTypeIdentifierMedicationRecord"
/// ```
public enum ClinicalTypeIdentifier {
    /// Allergies and intolerances (`AllergyIntolerance`).
    public static let allergyRecord = "HKClinicalTypeIdentifierAllergyRecord"
    /// Clinical notes (`DocumentReference`; iOS 16.4).
    public static let clinicalNoteRecord = "HKClinicalTypeIdentifierClinicalNoteRecord"
    /// Conditions, problems and diagnoses (`Condition`).
    public static let conditionRecord = "HKClinicalTypeIdentifierConditionRecord"
    /// Insurance coverage (`Coverage`; iOS 14).
    public static let coverageRecord = "HKClinicalTypeIdentifierCoverageRecord"
    /// Vaccinations (`Immunization`).
    public static let immunizationRecord = "HKClinicalTypeIdentifierImmunizationRecord"
    /// Laboratory results (`Observation` other than vital signs, `DiagnosticReport`).
    public static let labResultRecord = "HKClinicalTypeIdentifierLabResultRecord"
    /// Medications (`MedicationRequest`, `MedicationStatement`, `MedicationDispense`, DSTU2 `MedicationOrder`).
    public static let medicationRecord = "HKClinicalTypeIdentifierMedicationRecord"
    /// Procedures (`Procedure`).
    public static let procedureRecord = "HKClinicalTypeIdentifierProcedureRecord"
    /// Vital signs (`Observation` in the `vital-signs` category).
    public static let vitalSignRecord = "HKClinicalTypeIdentifierVitalSignRecord"

    /// Not a HealthKit identifier: the type of records whose FHIR resource HealthKit has no clinical type for
    /// (`Patient`, for example). They are kept rather than dropped; their ``FHIRResource/resourceType`` says
    /// what they are.
    public static let otherRecord = "CloudantClinicalTypeIdentifierOtherRecord"

    /// The prefix every HealthKit clinical type identifier starts with.
    public static let healthKitPrefix = "HKClinicalTypeIdentifier"

    /// The clinical type of a resource of FHIR type `type`; an `Observation` is a vital sign when one of its
    /// `categories` codes is `vital-signs`, else a lab result. ``otherRecord`` for types HealthKit does not map.
    public static func forResource(type: String, categories: [String] = []) -> String {
        switch type {
        case "AllergyIntolerance": allergyRecord
        case "Condition": conditionRecord
        case "Coverage": coverageRecord
        case "DiagnosticReport": labResultRecord
        case "DocumentReference": clinicalNoteRecord
        case "Immunization": immunizationRecord
        case "MedicationDispense", "MedicationOrder", "MedicationRequest", "MedicationStatement": medicationRecord
        case "Observation": categories.contains("vital-signs") ? vitalSignRecord : labResultRecord
        case "Procedure": procedureRecord
        default: otherRecord
        }
    }
}
