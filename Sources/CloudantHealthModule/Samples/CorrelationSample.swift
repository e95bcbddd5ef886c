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
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// The quantity members (HealthKit's `objects` that are quantity samples).
    public var quantitySamples: [QuantitySample]
    /// The category members, if any.
    public var categorySamples: [CategorySample]

    /// Creates a correlation; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        quantitySamples: [QuantitySample] = [], categorySamples: [CategorySample] = [], revId: String? = nil
    ) {
        fields = SampleFields(
            id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
            startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate, source: source,
            device: device, metadata: metadata, revId: revId)
        self.quantitySamples = quantitySamples
        self.categorySamples = categorySamples
    }
}

extension CorrelationSample {
    private enum CodingKeys: String, CodingKey {
        case quantitySamples, categorySamples
    }

    /// Reads the flat JSON: the ``SampleFields`` members and this family's own.
    public init(from decoder: any Decoder) throws {
        fields = try SampleFields(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        quantitySamples = try container.decodeIfPresent([QuantitySample].self, forKey: .quantitySamples) ?? []
        categorySamples = try container.decodeIfPresent([CategorySample].self, forKey: .categorySamples) ?? []
    }

    /// Writes the flat JSON, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(quantitySamples, forKey: .quantitySamples)
        try container.encode(categorySamples, forKey: .categorySamples)
    }
}
