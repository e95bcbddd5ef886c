public import Foundation

/// A patient (CareKit's `OCKPatient`).
///
/// ```swift
/// var patient = Patient(id: "jane", name: PersonNameComponents(givenName: "Jane", familyName: "Doe"),
///                       effectiveDate: clock.now)
/// patient.allergies = ["penicillin"]
/// ```
public struct Patient: VersionedEntity, FlatVersionedCoding {
    /// The shared versioned fields.
    public var versioned: VersionedFields
    /// The patient's name.
    public var name: PersonNameComponents
    /// The patient's biological sex.
    public var sex: BiologicalSex?
    /// The patient's date of birth.
    public var birthday: Date?
    /// The patient's allergies.
    public var allergies: [String]?

    /// Creates the first version of a patient.
    ///
    /// - Parameters:
    ///   - id: The developer's id.
    ///   - name: The patient's name.
    ///   - uuid: This version's uuid; the live default is a random one.
    ///   - effectiveDate: When this version takes effect; the live default is now.
    ///   - timezone: The time zone it is created in; the live default is the current one.
    public init(
        id: String, name: PersonNameComponents, uuid: UUID = UUID(), effectiveDate: Date = Date(),
        timezone: TimeZone = .current
    ) {
        self.versioned = VersionedFields(id: id, uuid: uuid, effectiveDate: effectiveDate, timezone: timezone)
        self.name = name
    }

    /// The patient's age in whole years on `date`, in `calendar`; `nil` without a birthday.
    public func age(on date: Date, calendar: Calendar) -> Int? {
        guard let birthday else { return nil }
        return calendar.dateComponents([.year], from: birthday, to: date).year
    }

    enum CodingKeys: String, CodingKey {
        case name, sex, birthday, allergies
    }

    init(versioned: VersionedFields, members container: KeyedDecodingContainer<CodingKeys>) throws {
        self.versioned = versioned
        name = try container.decodeIfPresent(PersonNameComponents.self, forKey: .name) ?? PersonNameComponents()
        sex = try container.decodeIfPresent(BiologicalSex.self, forKey: .sex)
        birthday = try container.decodeCareDateIfPresent(forKey: .birthday)
        allergies = try container.decodeIfPresent([String].self, forKey: .allergies)
    }

    func encodeMembers(to container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(sex, forKey: .sex)
        try container.encodeIfPresent(birthday, forKey: .birthday)
        try container.encodeIfPresent(allergies, forKey: .allergies)
    }
}
