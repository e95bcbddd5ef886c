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
/// Every attribute and metadata value is typed as ``GenericSample/typedValue(_:)`` reads it, the type
/// identifier is kept as written, and ``typedSample()`` reads the sample as the typed family its identifier
/// names once the store can hold it, so a later version that models the type reads what an earlier one kept.
public struct GenericSample: HealthSample {
    /// The family of the sample.
    public static let sampleType = HealthSampleType.generic
    /// The fields every sample has (ids, type identifier, interval and offsets, source, device, metadata),
    /// each also a property of the sample (``HealthSample``).
    public var fields: SampleFields
    /// The element it came from (`Record`), or the kind of file (`Electrocardiogram`).
    public var element: String
    /// The value, typed (a number, a quantity object, text), when the element has one.
    public var value: JSONValue?
    /// The unit string as written, when the element has one.
    public var unit: String?
    /// Every attribute of the element, typed, under its name as written.
    public var attributes: [String: JSONValue]
    /// Child elements other than metadata, as `{"element", "attributes", "children"}` objects, in order.
    public var children: [JSONValue]
    /// Why the sample is generic (the type is not modelled, the unit is unknown…).
    public var reason: String?

    /// Creates a generic sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, element: String = "Record", value: JSONValue? = nil,
        unit: String? = nil, attributes: [String: JSONValue] = [:], children: [JSONValue] = [], reason: String? = nil,
        startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        fields = SampleFields(
            id: id, uuid: uuid, typeIdentifier: typeIdentifier, startDate: startDate, endDate: endDate,
            startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate, source: source,
            device: device, metadata: metadata, revId: revId)
        self.element = element
        self.value = value
        self.unit = unit
        self.attributes = attributes
        self.children = children
        self.reason = reason
    }

    /// The sample as the typed family its identifier names, when this version can hold it: a quantity with a
    /// numeric value and a unit HealthKit writes, or a category. `nil` otherwise (the sample stays generic).
    public func typedSample() -> AnyHealthSample? {
        guard element == "Record" else { return nil }
        switch HealthSampleType(typeIdentifier: fields.typeIdentifier) {
        case .quantity:
            guard let number = value?.numberValue?.doubleValue ?? value?["value"]?.numberValue?.doubleValue,
                let unit = unit ?? value?["unit"]?.stringValue, (try? HealthUnit(parsing: unit)) != nil
            else { return nil }
            var quantity = QuantitySample(
                uuid: fields.uuid, typeIdentifier: fields.typeIdentifier, value: number, unit: unit,
                startDate: fields.startDate, endDate: fields.endDate)
            quantity.fields = fields
            return .quantity(quantity)
        case .category:
            let number = value?.numberValue?.int64Value.map(Int.init)
            var category = CategorySample(
                uuid: fields.uuid, typeIdentifier: fields.typeIdentifier, value: number,
                valueName: number == nil ? value?.stringValue : nil, startDate: fields.startDate, endDate: fields.endDate)
            category.fields = fields
            return .category(category)
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

extension GenericSample {
    private enum CodingKeys: String, CodingKey {
        case element, value, unit, attributes, children, reason
    }

    /// Reads the flat JSON: the ``SampleFields`` members and this family's own.
    public init(from decoder: any Decoder) throws {
        fields = try SampleFields(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        element = try container.decode(String.self, forKey: .element)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value)
        unit = try container.decodeIfPresent(String.self, forKey: .unit)
        attributes = try container.decodeIfPresent([String: JSONValue].self, forKey: .attributes) ?? [:]
        children = try container.decodeIfPresent([JSONValue].self, forKey: .children) ?? []
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
    }

    /// Writes the flat JSON, absent optionals left out.
    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(element, forKey: .element)
        try container.encodeIfPresent(value, forKey: .value)
        try container.encodeIfPresent(unit, forKey: .unit)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(children, forKey: .children)
        try container.encodeIfPresent(reason, forKey: .reason)
    }
}
