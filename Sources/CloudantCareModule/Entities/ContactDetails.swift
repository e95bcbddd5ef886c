/// A postal address (CareKit's `OCKPostalAddress`); every part is optional text.
public struct PostalAddress: Codable, Hashable, Sendable {
    /// Street and number.
    public var street: String?
    /// City.
    public var city: String?
    /// State or province.
    public var state: String?
    /// Postal code.
    public var postalCode: String?
    /// Country name.
    public var country: String?
    /// ISO 3166 country code.
    public var isoCountryCode: String?
    /// County or district.
    public var subAdministrativeArea: String?
    /// Neighbourhood.
    public var subLocality: String?

    /// Creates an address.
    public init(
        street: String? = nil, city: String? = nil, state: String? = nil, postalCode: String? = nil,
        country: String? = nil, isoCountryCode: String? = nil, subAdministrativeArea: String? = nil,
        subLocality: String? = nil
    ) {
        self.street = street
        self.city = city
        self.state = state
        self.postalCode = postalCode
        self.country = country
        self.isoCountryCode = isoCountryCode
        self.subAdministrativeArea = subAdministrativeArea
        self.subLocality = subLocality
    }
}

/// A labelled piece of contact information (CareKit's `OCKLabeledValue`), such as `("work", "+1 555 0100")`.
public struct LabeledValue: Codable, Hashable, Sendable {
    /// What the value is (`"work"`, `"mobile"`).
    public var label: String
    /// The value itself.
    public var value: String

    /// Creates a labelled value.
    public init(label: String, value: String) {
        self.label = label
        self.value = value
    }
}

/// Who a contact is to the patient (CareKit's `OCKContactCategory`).
public enum ContactCategory: String, Codable, Hashable, Sendable, CaseIterable {
    /// A doctor, nurse or other carer.
    case careProvider
    /// A friend or relative.
    case friendsAndFamily
}
