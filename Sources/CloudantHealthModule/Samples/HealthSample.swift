public import CloudantCore
public import Foundation

/// What every stored health sample has: HealthKit's type identifier, an interval kept with the time-zone
/// offset it was recorded in, its source and device, and metadata of any JSON type, all in its
/// ``SampleFields``, each readable and writable as a property of the sample (`sample.startDate`).
///
/// ```swift
/// func describe(_ sample: some HealthSample) -> String {
///     "\(sample.typeIdentifier) at \(sample.startDate) (UTC\(sample.startUTCOffset ?? 0)s)"
/// }
/// ```
@dynamicMemberLookup
public protocol HealthSample: CloudantEntity, Hashable, SelfDescribingEntity where ID == String {
    /// The family of the sample.
    static var sampleType: HealthSampleType { get }
    /// The members of this family beside ``SampleFields`` (a quantity's value and unit, a workout's totals),
    /// in the same flat JSON object; each is also a property of the sample (`quantity.value`).
    associatedtype Values: Codable, Hashable, Sendable
    /// The fields every sample has.
    var fields: SampleFields { get set }
    /// The family's own members.
    var values: Values { get set }
    /// The type identifier a stored document of the family reads with when it leaves it out (workouts and
    /// routes, whose every sample has one); `nil` (the default): a document must name its own.
    static var defaultTypeIdentifier: String? { get }

    /// Creates a sample from its common fields and the family's own members.
    init(fields: SampleFields, values: Values)
}

extension HealthSample {
    /// Reads the flat JSON: the ``SampleFields`` members and the family's ``HealthSample/Values`` side by side.
    public init(from decoder: any Decoder) throws {
        self.init(
            fields: try SampleFields(from: decoder, typeIdentifier: Self.defaultTypeIdentifier),
            values: try Values(from: decoder))
    }

    /// Writes the flat JSON: the ``SampleFields`` members and the family's ``HealthSample/Values`` in one
    /// object, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        try values.encode(to: encoder)
    }

    /// Every member of the family's ``HealthSample/Values`` as a property of the sample: `quantity.value`,
    /// `workout.events.append(lap)`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Values, Value>) -> Value {
        get { values[keyPath: keyPath] }
        set { values[keyPath: keyPath] = newValue }
    }
}

extension HealthSample {
    /// The document id (the sample's uuid unless an import derived it from the record's content).
    public var id: String {
        get { fields.id }
        set { fields.id = newValue }
    }

    /// The revision the sample was read at; `nil` for a sample never stored.
    public var revId: String? {
        get { fields.revId }
        set { fields.revId = newValue }
    }

    /// Every other member of ``SampleFields`` as a property of the sample: `sample.startDate`,
    /// `sample.metadata["HKWasUserEntered"] = true`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<SampleFields, Value>) -> Value {
        get { fields[keyPath: keyPath] }
        set { fields[keyPath: keyPath] = newValue }
    }
}

extension HealthSample {
    /// The start as the local wall-clock time it was recorded in, when the offset is known.
    public var startTimeZone: TimeZone? { fields.startUTCOffset.flatMap { TimeZone(secondsFromGMT: $0) } }
    /// The start as it was written: the instant with the UTC offset it was recorded in (`2024-06-01 13:00:00
    /// -0700`, see ``LocalTimestamp/exportText`` and ``LocalTimestamp/iso8601``); `nil` when the offset is unknown.
    public var localStartDate: LocalTimestamp? {
        fields.startUTCOffset.map { LocalTimestamp(date: fields.startDate, utcOffset: $0) }
    }
    /// The end as it was written, with its own offset (a flight can end in another zone than it started).
    public var localEndDate: LocalTimestamp? {
        fields.endUTCOffset.map { LocalTimestamp(date: fields.endDate, utcOffset: $0) }
    }
    /// The sample's duration in seconds.
    public var duration: TimeInterval { fields.endDate.timeIntervalSince(fields.startDate) }
}
