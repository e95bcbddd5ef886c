/// A JSON value exactly as a CouchDB document holds it.
///
/// Documents travel through the store as `JSONValue`s rather than `[String: Any]`, so they are `Sendable`,
/// comparable and hashable, and numbers keep their exact value (a 64-bit id stays a 64-bit id).
///
/// ```swift
/// let body: JSONValue = ["title": "Blood pressure", "systolic": 120, "tags": ["am", "cuff"]]
/// body["systolic"]   // .number(120)
/// ```
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// JSON `true` or `false`.
    case bool(Bool)
    /// A JSON number, kept exactly (see ``JSONNumber``).
    case number(JSONNumber)
    /// A JSON string.
    case string(String)
    /// A JSON array.
    case array([JSONValue])
    /// A JSON object; members keep the order they were written in.
    case object(JSONObject)
}

extension JSONValue {
    /// The member named `key` when this value is an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let object) = self else { return nil }
            return object[key]
        }
        set {
            guard case .object(var object) = self else { return }
            object[key] = newValue
            self = .object(object)
        }
    }

    /// The object this value holds, or `nil` for any other kind of value.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The string this value holds, or `nil` for any other kind of value.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The boolean this value holds, or `nil` for any other kind of value.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The number this value holds, or `nil` for any other kind of value.
    public var numberValue: JSONNumber? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The elements this value holds when it is an array, else `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a JSON boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates a JSON integer.
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a JSON number from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates a JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates a JSON object whose members keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
