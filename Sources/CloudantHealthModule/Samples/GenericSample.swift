public import CloudantCore
public import Foundation

/// A sample of a type the store does not model, kept whole instead of dropped (stored as an `HKSample`
/// document): a `<Record>` whose type is `HKDataTypeSleepDurationGoal` or an app's own identifier, a quantity
/// whose unit or value the typed sample cannot hold, an electrocardiogram's CSV file.
///
/// ```swift
/// let goals = try await store.samples(ofType: "HKDataTypeSleepDurationGoal")
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
    /// The document id (defaults to ``uuid``).
    public var id: String
    /// The sample's uuid.
    public var uuid: String
    /// The type identifier exactly as the export wrote it.
    public var typeIdentifier: String
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
    /// When the sample starts.
    public var startDate: Date
    /// When it ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in.
    public var endUTCOffset: Int?
    /// When it was created on the device, if known.
    public var creationDate: Date?
    /// The app or device that wrote it.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// Metadata, typed.
    public var metadata: [String: JSONValue]
    /// The revision the sample was read at.
    public var revId: String?

    /// Creates a generic sample; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, element: String = "Record", value: JSONValue? = nil,
        unit: String? = nil, attributes: [String: JSONValue] = [:], children: [JSONValue] = [], reason: String? = nil,
        startDate: Date, endDate: Date, startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil,
        source: HealthSource? = nil, device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
        self.element = element
        self.value = value
        self.unit = unit
        self.attributes = attributes
        self.children = children
        self.reason = reason
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

    /// The sample as the typed family its identifier names, when this version can hold it: a quantity with a
    /// numeric value and a unit HealthKit writes, or a category. `nil` otherwise (the sample stays generic).
    public func typedSample() -> AnyHealthSample? {
        guard element == "Record" else { return nil }
        switch HealthSampleType(typeIdentifier: typeIdentifier) {
        case .quantity:
            guard let number = value?.numberValue?.doubleValue ?? value?["value"]?.numberValue?.doubleValue,
                let unit = unit ?? value?["unit"]?.stringValue, (try? HealthUnit(parsing: unit)) != nil
            else { return nil }
            return .quantity(QuantitySample(
                id: id, uuid: uuid, typeIdentifier: typeIdentifier, value: number, unit: unit, startDate: startDate,
                endDate: endDate, startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate,
                source: source, device: device, metadata: metadata, revId: revId))
        case .category:
            let number = value?.numberValue?.int64Value.map(Int.init)
            return .category(CategorySample(
                id: id, uuid: uuid, typeIdentifier: typeIdentifier, value: number,
                valueName: number == nil ? value?.stringValue : nil, startDate: startDate, endDate: endDate,
                startUTCOffset: startUTCOffset, endUTCOffset: endUTCOffset, creationDate: creationDate, source: source,
                device: device, metadata: metadata, revId: revId))
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
