public import CloudantCore
public import Foundation

/// Samples taken together (`HKCorrelation`): blood pressure (systolic + diastolic) or food (energy,
/// nutrients), stored as one `HKCorrelation` document that embeds its members.
///
/// ```swift
/// let pressure = CorrelationSample(uuid: "…", typeIdentifier: "HKCorrelationTypeIdentifierBloodPressure",
///     startDate: t, endDate: t, quantitySamples: [systolic, diastolic])
/// pressure.quantitySamples.map(\.value)   // [120, 80]
/// ```
public struct CorrelationSample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.correlation
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// HealthKit's uuid for the correlation.
    public var uuid: String
    /// HealthKit's correlation type identifier.
    public var typeIdentifier: String
    /// When the correlation starts.
    public var startDate: Date
    /// When it ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
    /// When it was created on the device, if known.
    public var creationDate: Date?
    /// The app or device that wrote it.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// HealthKit metadata, any JSON value per key.
    public var metadata: [String: JSONValue]
    /// The quantity members (HealthKit's `objects` that are quantity samples).
    public var quantitySamples: [QuantitySample]
    /// The category members, if any.
    public var categorySamples: [CategorySample]
    /// The revision the correlation was read at.
    public var revId: String?

    /// Creates a correlation; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        quantitySamples: [QuantitySample] = [], categorySamples: [CategorySample] = [], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
        self.startDate = startDate
        self.endDate = endDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.creationDate = creationDate
        self.source = source
        self.device = device
        self.metadata = metadata
        self.quantitySamples = quantitySamples
        self.categorySamples = categorySamples
        self.revId = revId
    }
}
