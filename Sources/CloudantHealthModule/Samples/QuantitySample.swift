public import CloudantCore
public import Foundation

/// A number with a unit over an interval (`HKQuantitySample`), stored as an `HKQuantitySample` document.
///
/// ```swift
/// let pulse = QuantitySample(
///     uuid: "6F1B…", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 71, unit: "count/min",
///     startDate: start, endDate: start, startUTCOffset: -7 * 3600)
/// try await store.add([pulse])
/// ```
public struct QuantitySample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.quantity
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// HealthKit's uuid for the sample.
    public var uuid: String
    /// HealthKit's quantity type identifier.
    public var typeIdentifier: String
    /// The value, in ``unit``.
    public var value: Double
    /// The HealthKit unit string the value is in (`count/min`, `mg/dL`); parse it with ``HealthUnit``.
    public var unit: String
    /// When the sample starts.
    public var startDate: Date
    /// When the sample ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
    /// When the sample was created on the device, if known.
    public var creationDate: Date?
    /// The app or device that wrote the sample.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// HealthKit metadata, any JSON value per key.
    public var metadata: [String: JSONValue]
    /// The revision the sample was read at.
    public var revId: String?

    /// Creates a quantity sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, value: Double, unit: String, startDate: Date,
        endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
        self.value = value
        self.unit = unit
        self.startDate = startDate
        self.endDate = endDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.creationDate = creationDate
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
    }

    /// The quantity with its parsed unit.
    /// - Throws: `CloudantError` `.invalidUnit` when ``unit`` is not a HealthKit unit string.
    public func quantity() throws(CloudantError) -> HealthQuantity {
        HealthQuantity(value: value, unit: try HealthUnit(parsing: unit))
    }
}
