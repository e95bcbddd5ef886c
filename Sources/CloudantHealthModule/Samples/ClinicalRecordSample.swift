public import CloudantCore
public import Foundation

/// A record from a healthcare institution (`HKClinicalRecord`): one lab result, condition, immunization,
/// allergy, medication or procedure, with its FHIR resource kept whole, stored as an `HKClinicalRecord`
/// document.
///
/// ```swift
/// let labs = try await health.samples(ofType: ClinicalTypeIdentifier.labResultRecord, in: lastYear)
/// for case .clinicalRecord(let record) in labs {
///     print(record.displayName, record.fhirResource.data["valueQuantity"]?["value"] ?? "–")
/// }
/// ```
///
/// Unlike HealthKit, whose start and end are when the record was downloaded, ``SampleFields/startDate`` here is
/// the resource's clinical date (when the observation was made, the condition began, the vaccine was given), so
/// date-range queries find records by when things happened; the download time is
/// ``ClinicalRecordSampleValues/receivedDate``.
public typealias ClinicalRecordSample = HealthSampleOf<ClinicalRecordSampleValues>

/// A clinical record's own members.
public struct ClinicalRecordSampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.clinicalRecord
    /// What the Health app shows for the record (the resource's code text, vaccine, medication…).
    public var displayName: String
    /// The FHIR resource.
    public var fhirResource: FHIRResource
    /// When the record was downloaded to the device.
    public var receivedDate: Date
    /// The UTC offset in seconds ``receivedDate`` was written in.
    public var receivedUTCOffset: Int?
}

extension ClinicalRecordSample {
    /// Creates a clinical record; `id` defaults to `uuid`, `typeIdentifier` to the resource's clinical type
    /// (``ClinicalTypeIdentifier/forResource(type:categories:)``), start to `receivedDate`, end to start.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String? = nil, displayName: String,
        fhirResource: FHIRResource, receivedDate: Date, receivedUTCOffset: Int? = nil, startDate: Date? = nil,
        endDate: Date? = nil, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        let clinicalType = typeIdentifier
            ?? ClinicalTypeIdentifier.forResource(
                type: fhirResource.resourceType, categories: FHIRFields.categoryCodes(of: fhirResource.data))
        // A record without its own start starts when it was received, in the offset that was written in.
        let start = startDate ?? receivedDate
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: clinicalType, startDate: start, endDate: endDate ?? start,
                startUTCOffset: startDate == nil ? receivedUTCOffset : startUTCOffset, endUTCOffset: endUTCOffset,
                source: source, device: device, metadata: metadata, revId: revId),
            values: Values(
                displayName: displayName, fhirResource: fhirResource, receivedDate: receivedDate,
                receivedUTCOffset: receivedUTCOffset))
    }
}
