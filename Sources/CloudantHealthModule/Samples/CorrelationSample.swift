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
public typealias CorrelationSample = HealthSampleOf<CorrelationSampleValues>

/// A correlation's own members.
public struct CorrelationSampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.correlation
    /// The quantity members (HealthKit's `objects` that are quantity samples).
    @EmptyWhenAbsent public var quantitySamples: [QuantitySample]
    /// The category members, if any.
    @EmptyWhenAbsent public var categorySamples: [CategorySample]
}

extension CorrelationSample {
    /// Creates a correlation; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        quantitySamples: [QuantitySample] = [], categorySamples: [CategorySample] = [], revId: String? = nil
    ) {
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
                startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate,
                source: source, device: device, metadata: metadata, revId: revId),
            values: Values(quantitySamples: quantitySamples, categorySamples: categorySamples))
    }
}
