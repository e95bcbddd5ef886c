public import Foundation

/// Any built-in care entity, as CareKit's `OCKEntity`: what revision records and conflict resolvers carry.
///
/// Encoded as CareKit encodes `OCKEntity`: `{"type":"task","object":{…}}`.
public enum CareEntity: Sendable, Hashable, Codable {
    /// A patient version.
    case patient(Patient)
    /// A care plan version.
    case carePlan(CarePlan)
    /// A contact version.
    case contact(Contact)
    /// A task version.
    case task(CareTask)
    /// A HealthKit-linked task version.
    case healthKitTask(HealthKitLinkedTask)
    /// An outcome version.
    case outcome(Outcome)

    /// The shared versioned fields of the wrapped version.
    public var versioned: VersionedFields {
        switch self {
        case .patient(let value): value.versioned
        case .carePlan(let value): value.versioned
        case .contact(let value): value.versioned
        case .task(let value): value.versioned
        case .healthKitTask(let value): value.versioned
        case .outcome(let value): value.versioned
        }
    }

    /// The kind name (CareKit's `type`).
    public var kindName: String {
        switch self {
        case .patient: Patient.careKindName
        case .carePlan: CarePlan.careKindName
        case .contact: Contact.careKindName
        case .task: CareTask.careKindName
        case .healthKitTask: HealthKitLinkedTask.careKindName
        case .outcome: Outcome.careKindName
        }
    }

    /// The developer id of the wrapped version.
    public var id: String { versioned.id }
    /// The uuid of the wrapped version.
    public var uuid: UUID { versioned.uuid }

    /// The wrapped version when it is a `type`.
    public func value<Entity: CareStorable>(as type: Entity.Type) -> Entity? {
        switch self {
        case .patient(let value): value as? Entity
        case .carePlan(let value): value as? Entity
        case .contact(let value): value as? Entity
        case .task(let value): value as? Entity
        case .healthKitTask(let value): value as? Entity
        case .outcome(let value): value as? Entity
        }
    }

    /// Wraps a built-in version; `nil` for a custom kind.
    public init?<Entity: CareStorable>(_ value: Entity) {
        switch value {
        case let value as Patient: self = .patient(value)
        case let value as CarePlan: self = .carePlan(value)
        case let value as Contact: self = .contact(value)
        case let value as CareTask: self = .task(value)
        case let value as HealthKitLinkedTask: self = .healthKitTask(value)
        case let value as Outcome: self = .outcome(value)
        default: return nil
        }
    }

    private enum CodingKeys: String, CodingKey { case type, object }

    /// Reads `{"type":…,"object":…}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case Patient.careKindName: self = .patient(try container.decode(Patient.self, forKey: .object))
        case CarePlan.careKindName: self = .carePlan(try container.decode(CarePlan.self, forKey: .object))
        case Contact.careKindName: self = .contact(try container.decode(Contact.self, forKey: .object))
        case CareTask.careKindName: self = .task(try container.decode(CareTask.self, forKey: .object))
        case HealthKitLinkedTask.careKindName:
            self = .healthKitTask(try container.decode(HealthKitLinkedTask.self, forKey: .object))
        case Outcome.careKindName: self = .outcome(try container.decode(Outcome.self, forKey: .object))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "Unknown care entity type; expected a CareKit type.")
        }
    }

    /// Writes `{"type":…,"object":…}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kindName, forKey: .type)
        switch self {
        case .patient(let value): try container.encode(value, forKey: .object)
        case .carePlan(let value): try container.encode(value, forKey: .object)
        case .contact(let value): try container.encode(value, forKey: .object)
        case .task(let value): try container.encode(value, forKey: .object)
        case .healthKitTask(let value): try container.encode(value, forKey: .object)
        case .outcome(let value): try container.encode(value, forKey: .object)
        }
    }
}
