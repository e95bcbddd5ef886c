/// The families of health samples the store keeps, each stored as its own entity kind (the original
/// `OTFHealthSampleType`, which knew only the first three and stored the rest as fake category samples).
///
/// ```swift
/// let heartRates = try await health.collection(healthKitSampleType: .quantity)
///     .where(field: "typeIdentifier", value: "HKQuantityTypeIdentifierHeartRate")
///     .getSamples()
/// ```
public enum HealthSampleType: String, Codable, Hashable, Sendable, CaseIterable {
    /// `HKCategorySample`: an enumerated value (sleep stage, stand hour).
    case category
    /// `HKQuantitySample`: a number with a unit.
    case quantity
    /// `HKCorrelation`: a group of samples taken together (blood pressure, food).
    case correlation
    /// `HKWorkout`: an activity with duration, energy, distance, events and statistics.
    case workout
    /// `HKWorkoutRoute`: the timestamped locations of a workout.
    case workoutRoute
    /// `HKCDADocumentSample`: an HL7 CDA document with its extracted fields.
    case cdaDocument
    /// `HKActivitySummary`: one day of the Activity rings and their goals.
    case activitySummary
    /// `HKClinicalRecord`: a FHIR resource from a healthcare institution.
    case clinicalRecord
    /// `HKSample`: a sample of a type the store does not model, kept whole (``GenericSample``).
    case generic

    /// The entity kind name documents of this family carry in `entityType` (HealthKit's class name).
    public var kindName: String {
        switch self {
        case .category: "HKCategorySample"
        case .quantity: "HKQuantitySample"
        case .correlation: "HKCorrelation"
        case .workout: "HKWorkout"
        case .workoutRoute: "HKWorkoutRoute"
        case .cdaDocument: "HKCDADocumentSample"
        case .activitySummary: "HKActivitySummary"
        case .clinicalRecord: "HKClinicalRecord"
        case .generic: "HKSample"
        }
    }

    /// The family whose entity kind is `kindName`, if any.
    public init?(kindName: String) {
        guard let match = Self.allCases.first(where: { $0.kindName == kindName }) else { return nil }
        self = match
    }
}
