public import CloudantBase
internal import Foundation

/// Default values as model files write them: JSON of the attribute's type (`"nan"`, `"infinity"` and
/// `"-infinity"` for `double` and `float`, decimal text for `decimal`, seconds since 1970 for `date1970`).
public enum AttributeDefaults {
    /// The default of `property` as a value; `nil` when it has none.
    ///
    /// ```swift
    /// AttributeDefaults.value(for: PropertyDescription(name: "servings", type: .int16, defaultValue: 4))  // .int16(4)
    /// ```
    public static func value(for property: PropertyDescription) -> AttributeValue? {
        guard let json = property.defaultValue, problem(with: json, for: property.type) == nil else { return nil }
        switch property.type {
        case .utf8: return json.stringValue.map(AttributeValue.utf8)
        case .id: return json.stringValue.map(AttributeValue.objectID)
        case .bool: return json.boolValue.map(AttributeValue.bool)
        case .date1970: return json.numberValue.map { .date(Date(timeIntervalSince1970: $0.doubleValue)) }
        case .int16: return json.numberValue?.int64Value.flatMap { Int16(exactly: $0) }.map(AttributeValue.int16)
        case .int32: return json.numberValue?.int64Value.flatMap { Int32(exactly: $0) }.map(AttributeValue.int32)
        case .int64: return json.numberValue?.int64Value.map(AttributeValue.int64)
        case .double: return double(json).map(AttributeValue.double)
        case .float: return double(json).map { .float(Float($0)) }
        case .decimal: return decimal(json).map(AttributeValue.decimal)
        case .binary, .xform, .relationToOne, .relationToMany: return nil
        }
    }

    /// Why `json` cannot be a default of `type`, or `nil` when it can.
    public static func problem(with json: JSONValue, for type: PropertyType) -> String? {
        switch type {
        case .utf8, .id:
            return json.stringValue == nil ? "must be a string" : nil
        case .bool:
            return json.boolValue == nil ? "must be true or false" : nil
        case .date1970:
            return json.numberValue == nil ? "must be a number of seconds since 1970" : nil
        case .int16, .int32, .int64:
            guard let integer = json.numberValue?.int64Value else { return "must be an integer" }
            if type == .int16, Int16(exactly: integer) == nil { return "does not fit int16" }
            if type == .int32, Int32(exactly: integer) == nil { return "does not fit int32" }
            return nil
        case .double, .float:
            return double(json) == nil ? "must be a number, \"nan\", \"infinity\" or \"-infinity\"" : nil
        case .decimal:
            return decimal(json) == nil ? "must be decimal text such as \"12.50\"" : nil
        case .binary, .xform:
            return "binary and xform attributes have no default"
        case .relationToOne, .relationToMany:
            return "relationships have no default"
        }
    }

    static func double(_ json: JSONValue) -> Double? {
        switch json {
        case .number(let number): number.doubleValue
        case .string("nan"): .nan
        case .string("infinity"): .infinity
        case .string("-infinity"): -.infinity
        default: nil
        }
    }

    static func decimal(_ json: JSONValue) -> Decimal? {
        switch json {
        case .string(let text): Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .number(.integer(let integer)): Decimal(integer)
        default: nil
        }
    }
}
