extension JSONValue: Codable {
    /// Decodes whatever JSON value the decoder holds.
    ///
    /// Use this when a `Codable` entity has a free-form member (`var userInfo: JSONValue`). Integers that fit
    /// in `Int64` decode as integers (Foundation's
    /// `JSONDecoder` reports `1.0` as one too; the two compare equal), other numbers as doubles. A generic `Decoder` does not report the
    /// order of object members (Foundation's `JSONDecoder` keeps them in a dictionary), so decoded objects
    /// have their members sorted by the UTF-8 bytes of their names, which at least makes the result
    /// deterministic. To keep written order, parse the JSON text with `JSONValue(parsing:)` instead.
    ///
    /// ```swift
    /// struct Note: Codable { var title: String; var extra: JSONValue }
    /// let note = try JSONDecoder().decode(Note.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the decoder holds something that is not JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(.integer(integer))
        } else if let double = try? container.decode(Double.self) {
            self = .number(.double(double))
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else if let members = try? container.decode([String: JSONValue].self) {
            let sorted = members.sorted { JSONWriter.precedesInUTF8($0.key, $1.key) }
            self = .object(JSONObject(uniqueMembers: sorted.map { (key: $0.key, value: $0.value) }))
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected a JSON value: null, a boolean, number, string, array or object.")
        }
    }

    /// Encodes the value as the JSON it is.
    ///
    /// Objects are encoded through a keyed container in member order; whether that order reaches the output
    /// is up to the encoder (`JSONEncoder` with `.sortedKeys` sorts them). A non-finite double is encoded as
    /// a `Double`, so the encoder's `nonConformingFloatEncodingStrategy` decides what happens to it.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(JSONValue.array([1, "two"]))
    /// ```
    ///
    /// - Throws: Whatever the encoder throws, such as `EncodingError.invalidValue` for a non-finite double.
    public func encode(to encoder: any Encoder) throws {
        if case .object(let object) = self {
            var container = encoder.container(keyedBy: JSONMemberKey.self)
            for (key, value) in object.members {
                try container.encode(value, forKey: JSONMemberKey(key))
            }
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(.integer(let integer)): try container.encode(integer)
        case .number(.double(let double)): try container.encode(double)
        // Coders have no integer type beyond 64 bits: the nearest double is what they can carry.
        case .number(.bigInteger(let digits)): try container.encode(JSONNumber.bigInteger(digits).doubleValue)
        case .string(let string): try container.encode(string)
        case .array(let elements): try container.encode(elements)
        case .object: break  // Encoded through a keyed container above.
        }
    }
}

/// A coding key for any object member name.
struct JSONMemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
