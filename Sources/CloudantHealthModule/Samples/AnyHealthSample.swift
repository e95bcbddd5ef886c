public import Foundation

/// Any stored health sample (what `getSamples` returns; the original's `[HKSample]`).
///
/// ```swift
/// for sample in try await health.collection(healthKitSampleType: .quantity).getSamples() {
///     if case .quantity(let quantity) = sample { print(quantity.value, quantity.unit) }
/// }
/// ```
public enum AnyHealthSample: Hashable, Sendable {
    /// A category sample.
    case category(CategorySample)
    /// A quantity sample.
    case quantity(QuantitySample)
    /// A correlation with its members.
    case correlation(CorrelationSample)
    /// A workout.
    case workout(WorkoutSample)
    /// A workout route.
    case workoutRoute(WorkoutRouteSample)
    /// A CDA document.
    case cdaDocument(CDADocumentSample)
    /// One day's activity summary.
    case activitySummary(ActivitySummarySample)
    /// A clinical record with its FHIR resource.
    case clinicalRecord(ClinicalRecordSample)
    /// A sample of a type the store does not model, kept whole.
    case generic(GenericSample)

    /// The wrapped sample.
    public var sample: any HealthSample {
        switch self {
        case .category(let sample): sample
        case .quantity(let sample): sample
        case .correlation(let sample): sample
        case .workout(let sample): sample
        case .workoutRoute(let sample): sample
        case .cdaDocument(let sample): sample
        case .activitySummary(let sample): sample
        case .clinicalRecord(let sample): sample
        case .generic(let sample): sample
        }
    }

    /// The sample's family.
    public var sampleType: HealthSampleType { type(of: sample).sampleType }
    /// The sample's document id.
    public var id: String { sample.id }
    /// The sample's HealthKit type identifier.
    public var typeIdentifier: String { sample.typeIdentifier }
    /// When the sample starts.
    public var startDate: Date { sample.startDate }
}

extension HealthSampleType {
    /// The family a HealthKit type identifier belongs to, by its prefix
    /// (`HKQuantityTypeIdentifier…` → ``quantity``, `HKClinicalTypeIdentifier…` → ``clinicalRecord``);
    /// `nil` for an identifier the store does not keep.
    public init?(typeIdentifier: String) {
        let prefixes: [(String, HealthSampleType)] = [
            ("HKQuantityTypeIdentifier", .quantity), ("HKCategoryTypeIdentifier", .category),
            ("HKCorrelationTypeIdentifier", .correlation), (WorkoutRouteSample.routeTypeIdentifier, .workoutRoute),
            (WorkoutSample.workoutTypeIdentifier, .workout), ("HKDocumentTypeIdentifier", .cdaDocument),
            (ActivitySummarySample.activitySummaryTypeIdentifier, .activitySummary),
            (ClinicalTypeIdentifier.healthKitPrefix, .clinicalRecord), (ClinicalTypeIdentifier.otherRecord, .clinicalRecord),
        ]
        guard let match = prefixes.first(where: { typeIdentifier.hasPrefix($0.0) }) else { return nil }
        self = match.1
    }
}
