public import CloudantCore
public import Foundation

/// An enumerated value over an interval (`HKCategorySample`): a sleep stage, a stand hour, a symptom.
///
/// ```swift
/// let asleep = CategorySample(uuid: "…", typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis",
///     value: 1, valueName: "HKCategoryValueSleepAnalysisAsleepCore", startDate: start, endDate: end)
/// ```
public typealias CategorySample = HealthSampleOf<CategorySampleValues>

/// A category's own members.
public struct CategorySampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.category
    /// The category's raw value, when known.
    public var value: Int?
    /// The value's HealthKit name as exports write it (`HKCategoryValueSleepAnalysisAsleepCore`).
    public var valueName: String?
}

extension CategorySample {
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
