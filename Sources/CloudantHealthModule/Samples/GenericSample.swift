public import CloudantCore
public import Foundation

/// A sample of a type the store does not model, kept whole instead of dropped (stored as an `HKSample`
/// document): a `<Record>` whose type is `HKDataTypeSleepDurationGoal` or an app's own identifier, a quantity
/// whose unit or value the typed sample cannot hold, an electrocardiogram's CSV file.
///
/// ```swift
/// let goals = try await health.samples(ofType: "HKDataTypeSleepDurationGoal")
/// if case .generic(let goal) = goals.first {
///     goal.value          // 8 (a number, not "8")
///     goal.unit           // "hr"
///     goal.attributes     // every attribute of the element, typed
/// }
/// ```
///
/// Every attribute and metadata value is typed as `GenericSample.typedValue(_:)` reads it, the type
/// identifier is kept as written, and `typedSample()` reads the sample as the typed family its identifier
/// names once the store can hold it, so a later version that models the type reads what an earlier one kept.
public typealias GenericSample = HealthSampleOf<GenericSampleValues>

/// A generic sample's own members.
public struct GenericSampleValues: HealthSampleValues {
    /// The family these members make a sample of.
    public static let sampleType = HealthSampleType.generic
    /// The element it came from (`Record`), or the kind of file (`Electrocardiogram`).
    public var element: String
    /// The value, typed (a number, a quantity object, text), when the element has one.
    public var value: JSONValue?
    /// The unit string as written, when the element has one.
    public var unit: String?
    /// Every attribute of the element, typed, under its name as written.
    @EmptyWhenAbsent public var attributes: [String: JSONValue]
    /// Child elements other than metadata, as `{"element", "attributes", "children"}` objects, in order.
    @EmptyWhenAbsent public var children: [JSONValue]
    /// Why the sample is generic (the type is not modelled, the unit is unknown…).
    public var reason: String?
}

extension GenericSample {
    /// Creates a generic sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, element: String = "Record", value: JSONValue? = nil,
        unit: String? = nil, attributes: [String: JSONValue] = [:], children: [JSONValue] = [], reason: String? = nil,
        startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.init(
            fields: SampleFields(
                id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
                startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate,
                source: source, device: device, metadata: metadata, revId: revId),
            values: Values(
                element: element, value: value, unit: unit, attributes: attributes, children: children, reason: reason))
    }

    /// The sample as the typed family its identifier names, when this version can hold it: a quantity with a
    /// numeric value and a unit HealthKit writes, or a category. `nil` otherwise (the sample stays generic).
    public func typedSample() -> AnyHealthSample? {
        let (value, unit) = (values.value, values.unit)
        guard values.element == "Record" else { return nil }
        switch HealthSampleType(typeIdentifier: fields.typeIdentifier) {
        case .quantity:
            guard let number = value?.numberValue?.doubleValue ?? value?["value"]?.numberValue?.doubleValue,
                let unit = unit ?? value?["unit"]?.stringValue, (try? HealthUnit(parsing: unit)) != nil
            else { return nil }
            return .quantity(QuantitySample(fields: fields, values: .init(value: number, unit: unit)))
        case .category:
            let number = value?.numberValue?.int64Value.map(Int.init)
            let name = number == nil ? value?.stringValue : nil
            return .category(CategorySample(fields: fields, values: .init(value: number, valueName: name)))
        default:
            return nil
        }
    }

    /// The typed value of an attribute or metadata text as Apple Health exports write them: an integer or a
    /// decimal becomes a number (`"8"` → `8`; not `"007"`, which is an identifier); a number and a unit
    /// HealthKit writes becomes `{"value", "unit"}` (`"56 degF"`, HealthKit's `HKQuantity` metadata); an
    /// export timestamp becomes ISO 8601 with its offset kept (`"2016-04-18 15:56:05 +0000"` →
    /// `"2016-04-18T15:56:05+00:00"`); anything else stays text.
    public static func typedValue(_ text: String) -> JSONValue { MetadataTyping.typed(text) }
}
