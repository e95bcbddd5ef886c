public import CloudantCore
public import Foundation

/// A record from a healthcare institution (`HKClinicalRecord`): one lab result, condition, immunization,
/// allergy, medication or procedure, with its FHIR resource kept whole, stored as an `HKClinicalRecord`
/// document.
///
/// ```swift
/// let labs = try await store.samples(ofType: ClinicalTypeIdentifier.labResultRecord, in: lastYear)
/// for case .clinicalRecord(let record) in labs {
///     print(record.displayName, record.fhirResource.data["valueQuantity"]?["value"] ?? "–")
/// }
/// ```
///
/// Unlike HealthKit, whose start and end are when the record was downloaded, ``startDate`` here is the
/// resource's clinical date (when the observation was made, the condition began, the vaccine was given), so
/// date-range queries find records by when things happened; the download time is ``receivedDate``.
public struct ClinicalRecordSample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.clinicalRecord
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// The record's uuid.
    public var uuid: String
    /// The clinical type identifier (``ClinicalTypeIdentifier``, `HKClinicalTypeIdentifierLabResultRecord`).
    public var typeIdentifier: String
    /// What the Health app shows for the record (the resource's code text, vaccine, medication…).
    public var displayName: String
    /// The FHIR resource.
    public var fhirResource: FHIRResource
    /// When the record was downloaded to the device.
    public var receivedDate: Date
    /// The UTC offset in seconds ``receivedDate`` was written in.
    public var receivedUTCOffset: Int?
    /// When what the record describes happened (see the type's discussion).
    public var startDate: Date
    /// When it ended; the start for a point in time.
    public var endDate: Date
    /// The UTC offset in seconds the start was written in, when the resource gives a time of day.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was written in.
    public var endUTCOffset: Int?
    /// The institution (`sourceName` in the export).
    public var source: HealthSource?
    /// The hardware that measured it (none for clinical records).
    public var device: HealthDevice?
    /// Metadata, any JSON value per key (the export's `resourceFilePath`).
    public var metadata: [String: JSONValue]
    /// The revision the record was read at.
    public var revId: String?

    /// Creates a clinical record; `id` defaults to `uuid`, `typeIdentifier` to the resource's clinical type
    /// (``ClinicalTypeIdentifier/forResource(type:categories:)``), start to ``receivedDate``, end to start.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String? = nil, displayName: String,
        fhirResource: FHIRResource, receivedDate: Date, receivedUTCOffset: Int? = nil, startDate: Date? = nil,
        endDate: Date? = nil, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
            ?? ClinicalTypeIdentifier.forResource(
                type: fhirResource.resourceType, categories: FHIRFields.categoryCodes(of: fhirResource.data))
        self.displayName = displayName
        self.fhirResource = fhirResource
        self.receivedDate = receivedDate
        self.receivedUTCOffset = receivedUTCOffset
        self.startDate = startDate ?? receivedDate
        self.endDate = endDate ?? self.startDate
        self.startUTCOffset = startDate == nil ? receivedUTCOffset : startUTCOffset
        self.endUTCOffset = endUTCOffset ?? self.startUTCOffset
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
    }
}
