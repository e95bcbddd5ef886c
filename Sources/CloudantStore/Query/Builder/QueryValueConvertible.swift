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

/// A JSON value is a query value as it is.
extension JSONValue: QueryValueConvertible {
    /// The value itself.
    public var queryValue: JSONValue { self }
}

/// A string is a query value: a JSON string.
extension String: QueryValueConvertible {
    /// A JSON string.
    public var queryValue: JSONValue { .string(self) }
}

/// A Boolean is a query value: `true` or `false`.
extension Bool: QueryValueConvertible {
    /// A JSON boolean.
    public var queryValue: JSONValue { .bool(self) }
}

/// An integer is a query value: a JSON number.
extension Int: QueryValueConvertible {
    /// A JSON integer.
    public var queryValue: JSONValue { .number(JSONNumber(Int64(self))) }
}

/// A 64-bit integer is a query value: a JSON number.
extension Int64: QueryValueConvertible {
    /// A JSON integer.
    public var queryValue: JSONValue { .number(JSONNumber(self)) }
}

/// A 32-bit integer is a query value: a JSON number.
extension Int32: QueryValueConvertible {
    /// A JSON integer.
    public var queryValue: JSONValue { .number(JSONNumber(Int64(self))) }
}

/// A double is a query value: a JSON number.
extension Double: QueryValueConvertible {
    /// A JSON number.
    public var queryValue: JSONValue { .number(JSONNumber(self)) }
}

/// A float is a query value: a JSON number.
extension Float: QueryValueConvertible {
    /// A JSON number (the float's exact value as a double).
    public var queryValue: JSONValue { .number(JSONNumber(Double(self))) }
}

/// A date is a query value: its ISO 8601 text, as entities store dates.
extension Date: QueryValueConvertible {
    /// The ISO 8601 text the store writes for dates (`2026-11-26T08:00:00.000Z`); `null` for a date with no
    /// such text (beyond ±999999 years).
    public var queryValue: JSONValue { ISO8601Timestamp.string(from: self).map(JSONValue.string) ?? .null }
}

/// A UUID is a query value: its text.
extension UUID: QueryValueConvertible {
    /// The uppercase string, as Foundation and CareKit write UUIDs.
    public var queryValue: JSONValue { .string(uuidString) }
}

/// An optional is a query value: its wrapped value, or `null`.
extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
    /// The wrapped value, or JSON `null`.
    public var queryValue: JSONValue { self?.queryValue ?? .null }
}

/// An array of query values is a query value: a JSON array.
extension Array: QueryValueConvertible where Element: QueryValueConvertible {
    /// A JSON array of the elements (the value `$in`, `$nin` and `$all` take).
    public var queryValue: JSONValue { .array(map(\.queryValue)) }
}

/// A dictionary of query values is a query value: a JSON object.
extension Dictionary: QueryValueConvertible where Key == String, Value: QueryValueConvertible {
    /// A JSON object, members sorted by name so a query reads the same every run.
    public var queryValue: JSONValue {
        .object(JSONObject(sorted { $0.key < $1.key }.map { ($0.key, $0.value.queryValue) }))
    }
}
