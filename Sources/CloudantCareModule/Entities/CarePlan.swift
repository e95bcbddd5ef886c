public import Foundation

/// A care plan (CareKit's `OCKCarePlan`): a titled group of tasks and contacts, optionally for one patient.
///
/// ```swift
/// let plan = CarePlan(id: "diabetes", title: "Diabetes", patientUUID: jane.uuid, effectiveDate: clock.now)
/// ```
public struct CarePlan: VersionedEntity, FlatVersionedCoding {
    /// The shared versioned fields.
    public var versioned: VersionedFields
    /// The plan's title.
    public var title: String
    /// The patient version the plan belongs to.
    public var patientUUID: UUID?

    /// Creates the first version of a care plan.
    ///
    /// - Parameters:
    ///   - id: The developer's id.
    ///   - title: The plan's title.
    ///   - patientUUID: The patient version the plan belongs to.
    ///   - uuid: This version's uuid; the live default is a random one.
    ///   - effectiveDate: When this version takes effect; the live default is now.
    ///   - timezone: The time zone it is created in; the live default is the current one.
    public init(
        id: String, title: String, patientUUID: UUID?, uuid: UUID = UUID(), effectiveDate: Date = Date(),
        timezone: TimeZone = .current
    ) {
        self.versioned = VersionedFields(id: id, uuid: uuid, effectiveDate: effectiveDate, timezone: timezone)
        self.title = title
        self.patientUUID = patientUUID
    }

    enum CodingKeys: String, CodingKey {
        case title, patientUUID
    }

    init(versioned: VersionedFields, members container: KeyedDecodingContainer<CodingKeys>) throws {
        self.versioned = versioned
        title = try container.decode(String.self, forKey: .title)
        patientUUID = try container.decodeIfPresent(UUID.self, forKey: .patientUUID)
    }

    func encodeMembers(to container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(patientUUID, forKey: .patientUUID)
    }
}
