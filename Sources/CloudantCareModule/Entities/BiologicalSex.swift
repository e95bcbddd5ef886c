/// A patient's biological sex (CareKit's `OCKBiologicalSex`), written as one string: `"male"`, `"female"` or
/// any other text.
public enum BiologicalSex: Codable, Hashable, Sendable, RawRepresentable {
    /// Male.
    case male
    /// Female.
    case female
    /// Any other value, kept as written.
    case other(String)

    /// Reads `"male"` and `"female"`; any other text becomes ``other(_:)``.
    public init(rawValue: String) {
        switch rawValue {
        case "male": self = .male
        case "female": self = .female
        default: self = .other(rawValue)
        }
    }

    /// The string stored in JSON.
    public var rawValue: String {
        switch self {
        case .male: "male"
        case .female: "female"
        case .other(let text): text
        }
    }

    /// Reads the single string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
