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
public typealias QuantitySample = HealthSampleOf<QuantitySampleValues>

/// A quantity's own members.
public struct QuantitySampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.quantity
    /// The value, in ``unit``.
    public var value: Double
    /// The HealthKit unit string the value is in (`count/min`, `mg/dL`); parse it with ``HealthUnit``.
    public var unit: String
}

extension QuantitySample {
    /// Creates a quantity sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, value: Double, unit: String, startDate: Date,
        endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:],
        revId: String? = nil
    ) {
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
                startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate,
                source: source, device: device, metadata: metadata, revId: revId),
            values: Values(value: value, unit: unit))
    }

    /// The quantity with its parsed unit.
    /// - Throws: `CloudantError` `.invalidUnit` when ``QuantitySampleValues/unit`` is not a HealthKit unit string.
    public func quantity() throws(CloudantError) -> HealthQuantity {
        HealthQuantity(value: values.value, unit: try HealthUnit(parsing: values.unit))
    }
}
