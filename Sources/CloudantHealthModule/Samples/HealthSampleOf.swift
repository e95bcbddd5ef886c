/// The one stored health sample type: the ``SampleFields`` every sample has and the family's own
/// ``HealthSampleValues``. Each family is a specialization with HealthKit's name: ``QuantitySample`` is
/// `HealthSampleOf<QuantitySampleValues>`, ``WorkoutSample`` is `HealthSampleOf<WorkoutSampleValues>`, and so
/// on; the family's initialisers and helpers are extensions of its alias.
///
/// ```swift
/// let pulse = QuantitySample(uuid: "6F1B…", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 71,
///     unit: "count/min", startDate: start, endDate: start)
/// pulse.value      // 71, the family's own member
/// pulse.startDate  // a member of every sample
/// ```
public struct HealthSampleOf<Values: HealthSampleValues>: HealthSample {
    /// The family of the sample.
    public static var sampleType: HealthSampleType { Values.sampleType }
    /// The type identifier a stored document of the family reads with when it leaves it out.
    public static var defaultTypeIdentifier: String? { Values.defaultTypeIdentifier }
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// The family's own members, each also a property of the sample (`pulse.value`).
    public var values: Values

    /// Creates a sample from its common fields and the family's own members.
    public init(fields: SampleFields, values: Values) {
        self.fields = fields
        self.values = values
    }
}

/// The members a family of samples has beside ``SampleFields`` (a quantity's value and unit, a workout's
/// totals), in the same flat JSON object, and what the family is.
public protocol HealthSampleValues: Codable, Hashable, Sendable {
    /// The family these members make a sample of.
    static var sampleType: HealthSampleType { get }
    /// The type identifier a stored document of the family reads with when it leaves it out (workouts and
    /// routes, whose every sample has one); `nil` (the default): a document must name its own.
    static var defaultTypeIdentifier: String? { get }
}

extension HealthSampleValues {
    /// Documents of most families must name their type identifier.
    public static var defaultTypeIdentifier: String? { nil }
}
