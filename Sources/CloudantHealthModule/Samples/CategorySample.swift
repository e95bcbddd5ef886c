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
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// The value and its name, each also a property of the sample (`asleep.valueName`).
    public var values: Values

    /// A category's own members.
    public struct Values: Codable, Hashable, Sendable {
        /// The category's raw value, when known.
        public var value: Int?
        /// The value's HealthKit name as exports write it (`HKCategoryValueSleepAnalysisAsleepCore`).
        public var valueName: String?
    }

    /// Creates a category sample from its fields and value.
    public init(fields: SampleFields, values: Values) {
        self.fields = fields
        self.values = values
    }

    /// Creates a category sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, value: Int? = nil, valueName: String? = nil,
        startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        creationDate: Date? = nil, source: HealthSource? = nil, device: HealthDevice? = nil,
        metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
                startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate,
                source: source, device: device, metadata: metadata, revId: revId),
            values: Values(value: value, valueName: valueName))
    }
}
