public import CloudantCore
public import Foundation

/// A Swift value a query condition can compare a field with: what OTFCloudantStore took as `value: Any`,
/// typed, so a wrong kind of value is a compile error instead of an empty result.
///
/// Literals and variables both work:
///
/// ```swift
/// let cutoff = 30
/// store.collection("OCKContact")
///     .where(.simpleComponent("age", .lessThan, cutoff), .and, .simpleComponent("title", .in, ["Nurse", "Doctor"]))
/// ```
///
/// Dates compare as the store writes them (ISO 8601 with milliseconds, UTC); UUIDs as their uppercase
/// string. Conform your own types by returning the JSON their documents hold.
public protocol QueryValueConvertible: Sendable {
    /// The JSON the field is compared with.
    var queryValue: JSONValue { get }
}

extension JSONValue: QueryValueConvertible {
    /// The value itself.
    public var queryValue: JSONValue { self }
}

extension String: QueryValueConvertible {
    /// A JSON string.
    public var queryValue: JSONValue { .string(self) }
}

extension Bool: QueryValueConvertible {
    /// A JSON boolean.
    public var queryValue: JSONValue { .bool(self) }
}

extension Int: QueryValueConvertible {
    /// A JSON integer.
    public var queryValue: JSONValue { .number(JSONNumber(Int64(self))) }
}

extension Int64: QueryValueConvertible {
    /// A JSON integer.
    public var queryValue: JSONValue { .number(JSONNumber(self)) }
}

extension Int32: QueryValueConvertible {
    /// A JSON integer.
    public var queryValue: JSONValue { .number(JSONNumber(Int64(self))) }
}

extension Double: QueryValueConvertible {
    /// A JSON number.
    public var queryValue: JSONValue { .number(JSONNumber(self)) }
}

extension Float: QueryValueConvertible {
    /// A JSON number (the float's exact value as a double).
    public var queryValue: JSONValue { .number(JSONNumber(Double(self))) }
}

extension Date: QueryValueConvertible {
    /// The ISO 8601 text the store writes for dates (`2026-11-26T08:00:00.000Z`); `null` for a date with no
    /// such text (beyond ±999999 years).
    public var queryValue: JSONValue { ISO8601Timestamp.string(from: self).map(JSONValue.string) ?? .null }
}

extension UUID: QueryValueConvertible {
    /// The uppercase string, as Foundation and CareKit write UUIDs.
    public var queryValue: JSONValue { .string(uuidString) }
}

extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
    /// The wrapped value, or JSON `null`.
    public var queryValue: JSONValue { self?.queryValue ?? .null }
}

extension Array: QueryValueConvertible where Element: QueryValueConvertible {
    /// A JSON array of the elements (the value `$in`, `$nin` and `$all` take).
    public var queryValue: JSONValue { .array(map(\.queryValue)) }
}

extension Dictionary: QueryValueConvertible where Key == String, Value: QueryValueConvertible {
    /// A JSON object, members sorted by name so a query reads the same every run.
    public var queryValue: JSONValue {
        .object(JSONObject(sorted { $0.key < $1.key }.map { ($0.key, $0.value.queryValue) }))
    }
}
