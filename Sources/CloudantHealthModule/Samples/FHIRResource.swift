public import CloudantCore
public import Foundation

/// A FHIR resource as a healthcare institution sent it (`HKFHIRResource`): its type, id, where it came from,
/// the FHIR version, and the resource itself kept whole as JSON.
///
/// ```swift
/// let resource = record.fhirResource
/// resource.resourceType                                        // "Observation"
/// resource.fhirRelease                                         // .r4
/// resource.data["valueQuantity"]?["value"]?.numberValue        // 6.7
/// ```
public struct FHIRResource: Codable, Hashable, Sendable {
    /// The FHIR resource type (`Observation`, `MedicationOrder`…), HealthKit's `HKFHIRResourceType`.
    public var resourceType: String
    /// The resource's id at its source.
    public var identifier: String
    /// The URL the resource was fetched from, when known.
    public var sourceURL: URL?
    /// The FHIR version the resource is written in (`1.0.2` for DSTU2, `4.0.1` for R4).
    public var fhirVersion: String
    /// The resource, every member as received (HealthKit's `data`, parsed).
    public var data: JSONValue

    /// Creates a resource.
    public init(resourceType: String, identifier: String, sourceURL: URL? = nil, fhirVersion: String, data: JSONValue) {
        self.resourceType = resourceType
        self.identifier = identifier
        self.sourceURL = sourceURL
        self.fhirVersion = fhirVersion
        self.data = data
    }

    /// The FHIR release of ``fhirVersion``; `nil` for a release HealthKit does not read.
    public var fhirRelease: FHIRRelease? { FHIRRelease(version: fhirVersion) }
}

/// The FHIR releases HealthKit reads (`HKFHIRRelease`).
public enum FHIRRelease: String, Codable, Hashable, Sendable, CaseIterable {
    /// DSTU2, FHIR 1.0.x (what most US patient portals first served).
    case dstu2 = "DSTU2"
    /// R4, FHIR 4.0.x.
    case r4 = "R4"

    /// The release a FHIR version string belongs to (`1.0.2` → ``dstu2``, `4.0.1` → ``r4``).
    public init?(version: String) {
        let parts = version.split(separator: ".")
        switch (parts.first, parts.dropFirst().first) {
        case ("1", "0"): self = .dstu2
        case ("4", "0"): self = .r4
        default: return nil
        }
    }
}
