public import Foundation

/// A person the patient can reach (CareKit's `OCKContact`).
///
/// ```swift
/// var doctor = Contact(id: "dr-lee", name: PersonNameComponents(givenName: "Ann", familyName: "Lee"),
///                      carePlanUUID: plan.uuid, effectiveDate: clock.now)
/// doctor.category = .careProvider
/// doctor.phoneNumbers = [LabeledValue(label: "work", value: "+1 555 0100")]
/// ```
public struct Contact: VersionedEntity, FlatVersionedCoding {
    /// The shared versioned fields.
    public var versioned: VersionedFields
    /// The contact's name.
    public var name: PersonNameComponents
    /// The contact's postal address.
    public var address: PostalAddress?
    /// Email addresses.
    public var emailAddresses: [LabeledValue]?
    /// Numbers that receive text messages.
    public var messagingNumbers: [LabeledValue]?
    /// Phone numbers.
    public var phoneNumbers: [LabeledValue]?
    /// Any other way to reach the contact.
    public var otherContactInfo: [LabeledValue]?
    /// The organisation the contact works for.
    public var organization: String?
    /// The contact's title (`"Family Practice Doctor"`).
    public var title: String?
    /// The contact's role in the patient's care.
    public var role: String?
    /// Who the contact is to the patient.
    public var category: ContactCategory?
    /// The care plan version the contact belongs to.
    public var carePlanUUID: UUID?

    /// Creates the first version of a contact.
    ///
    /// - Parameters:
    ///   - id: The developer's id.
    ///   - name: The contact's name.
    ///   - carePlanUUID: The care plan version the contact belongs to.
    ///   - uuid: This version's uuid; the live default is a random one.
    ///   - effectiveDate: When this version takes effect; the live default is now.
    ///   - timezone: The time zone it is created in; the live default is the current one.
    public init(
        id: String, name: PersonNameComponents, carePlanUUID: UUID?, uuid: UUID = UUID(),
        effectiveDate: Date = Date(), timezone: TimeZone = .current
    ) {
        self.versioned = VersionedFields(id: id, uuid: uuid, effectiveDate: effectiveDate, timezone: timezone)
        self.name = name
        self.carePlanUUID = carePlanUUID
    }

    enum CodingKeys: String, CodingKey {
        case name, address, emailAddresses, messagingNumbers, phoneNumbers, otherContactInfo, organization, title
        case role, category, carePlanUUID
    }

    init(versioned: VersionedFields, members container: KeyedDecodingContainer<CodingKeys>) throws {
        self.versioned = versioned
        name = try container.decodeIfPresent(PersonNameComponents.self, forKey: .name) ?? PersonNameComponents()
        address = try container.decodeIfPresent(PostalAddress.self, forKey: .address)
        emailAddresses = try container.decodeIfPresent([LabeledValue].self, forKey: .emailAddresses)
        messagingNumbers = try container.decodeIfPresent([LabeledValue].self, forKey: .messagingNumbers)
        phoneNumbers = try container.decodeIfPresent([LabeledValue].self, forKey: .phoneNumbers)
        otherContactInfo = try container.decodeIfPresent([LabeledValue].self, forKey: .otherContactInfo)
        organization = try container.decodeIfPresent(String.self, forKey: .organization)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        role = try container.decodeIfPresent(String.self, forKey: .role)
        category = try container.decodeIfPresent(ContactCategory.self, forKey: .category)
        carePlanUUID = try container.decodeIfPresent(UUID.self, forKey: .carePlanUUID)
    }

    func encodeMembers(to container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(address, forKey: .address)
        try container.encodeIfPresent(emailAddresses, forKey: .emailAddresses)
        try container.encodeIfPresent(messagingNumbers, forKey: .messagingNumbers)
        try container.encodeIfPresent(phoneNumbers, forKey: .phoneNumbers)
        try container.encodeIfPresent(otherContactInfo, forKey: .otherContactInfo)
        try container.encodeIfPresent(organization, forKey: .organization)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(carePlanUUID, forKey: .carePlanUUID)
    }
}
