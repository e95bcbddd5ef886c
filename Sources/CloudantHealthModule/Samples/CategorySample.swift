public import CloudantCore
public import Foundation

/// An enumerated value over an interval (`HKCategorySample`): a sleep stage, a stand hour, a symptom.
///
/// ```swift
/// let asleep = CategorySample(uuid: "…", typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis",
///     value: 1, valueName: "HKCategoryValueSleepAnalysisAsleepCore", startDate: start, endDate: end)
/// ```
public struct CategorySample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.category
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// HealthKit's uuid for the sample.
    public var uuid: String
    /// HealthKit's category type identifier.
    public var typeIdentifier: String
    /// The category's raw value, when known.
    public var value: Int?
    /// The value's HealthKit name as exports write it (`HKCategoryValueSleepAnalysisAsleepCore`).
    public var valueName: String?
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

    /// Creates a category sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, value: Int? = nil, valueName: String? = nil,
        startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        creationDate: Date? = nil, source: HealthSource? = nil, device: HealthDevice? = nil,
        metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
        self.value = value
        self.valueName = valueName
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
}
