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
    /// The category's raw value, when known.
    public var value: Int?
    /// The value's HealthKit name as exports write it (`HKCategoryValueSleepAnalysisAsleepCore`).
    public var valueName: String?

    /// Creates a category sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, value: Int? = nil, valueName: String? = nil,
        startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil,
        creationDate: Date? = nil, source: HealthSource? = nil, device: HealthDevice? = nil,
        metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        fields = SampleFields(
            id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
            startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate, source: source,
            device: device, metadata: metadata, revId: revId)
        self.value = value
        self.valueName = valueName
    }
}

extension CategorySample {
    private enum CodingKeys: String, CodingKey {
        case value, valueName
    }

    /// Reads the flat JSON: the ``SampleFields`` members and this family's own.
    public init(from decoder: any Decoder) throws {
        fields = try SampleFields(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeIfPresent(Int.self, forKey: .value)
        valueName = try container.decodeIfPresent(String.self, forKey: .valueName)
    }

    /// Writes the flat JSON, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(value, forKey: .value)
        try container.encodeIfPresent(valueName, forKey: .valueName)
    }
}
