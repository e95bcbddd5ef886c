internal import Foundation

/// Decodes `Decodable` values straight from a parsed ``JSONValue``, as Foundation's `JSONDecoder` with
/// ``CloudantJSONCoding``'s settings decodes the same value's JSON text, without writing the text and
/// scanning it again.
///
/// Every entity read from the store went value → text → `JSONDecoder`; the text round trip and Foundation's
/// scanner were most of a typed read (a care task: ~55 µs of ~70). This decoder follows `JSONDecoder`'s rules
/// for what the store's values can hold:
/// - `Bool` and `String` only from their JSON kinds; `null` where a value is required is `valueNotFound`;
/// - integers from integer numbers that fit, or from other numbers that are whole and below 2^53 in
///   magnitude (`34.0`); floating point from any number (an integer beyond `Double`'s range is refused);
/// - `Date` from ISO 8601 text (``ISO8601Timestamp``), `Data` from base64, `URL` from `URL(string:)`;
/// - `Float` and `Decimal`, which `JSONDecoder` reads from the number's text, are decoded by `JSONDecoder`
///   from that value's text.
///
/// ``JSONValue/decode(_:)`` uses it and, when it throws, decodes again with `JSONDecoder`, so failures carry
/// exactly the errors they always did.
struct JSONValueDecoder {
    /// Decodes `type` from `value`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder.decode(type, from: value, at: .root)
    }
}

/// Where a value sits, built only as far as decoding descends, written out only when asked for.
indirect enum DecodingPath {
    case root
    case key(String, DecodingPath)
    case index(Int, DecodingPath)

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root: return keys.reversed()
            case .key(let name, let parent):
                keys.append(PathKey(stringValue: name))
                node = parent
            case .index(let index, let parent):
                keys.append(PathKey(intValue: index))
                node = parent
            }
        }
    }

    func appending(_ key: some CodingKey) -> DecodingPath { .key(key.stringValue, self) }
}

/// A key of a coding path; an array position is written `Index N`, as `JSONDecoder` writes it.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let path: DecodingPath

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let object): return KeyedDecodingContainer(KeyedContainer<Key>(object: object, path: path))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "Found null instead of an object."))
        default:
            throw DecodingError.typeMismatch(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "Expected an object."))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements): return UnkeyedContainer(elements: elements, path: path)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self, .init(codingPath: codingPath, debugDescription: "Found null instead of an array."))
        default:
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "Expected an array."))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Single value

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try Primitive.bool(value, path) }
    func decode(_ type: String.Type) throws -> String { try Primitive.string(value, path) }
    func decode(_ type: Double.Type) throws -> Double { try Primitive.double(value, path) }
    func decode(_ type: Float.Type) throws -> Float { try Primitive.throughFoundation(Float.self, value, path) }
    func decode(_ type: Int.Type) throws -> Int { try Primitive.integer(value, path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Primitive.integer(value, path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Primitive.integer(value, path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Primitive.integer(value, path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Primitive.integer(value, path) }
    func decode(_ type: UInt.Type) throws -> UInt { try Primitive.integer(value, path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Primitive.integer(value, path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Primitive.integer(value, path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Primitive.integer(value, path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Primitive.integer(value, path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.decode(type, from: value, at: path) }

    /// `value` as `T`, with `JSONDecoder`'s special cases for Foundation's types; `path` is the value's path.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: DecodingPath) throws -> T {
        if type == Date.self { return try cast(Primitive.date(value, path), path) }
        if type == Data.self { return try cast(Primitive.data(value, path), path) }
        if type == URL.self { return try cast(Primitive.url(value, path), path) }
        if type == Decimal.self { return try cast(Primitive.throughFoundation(Decimal.self, value, path), path) }
        // `UUID(uuidString:)` is `sscanf` on Linux; canonical text is read directly, any other goes to `UUID`'s own
        // `init(from:)` below, which accepts or refuses it as `JSONDecoder` does.
        if type == UUID.self, case .string(let text) = value, let uuid = UUIDText.canonical(text) { return try cast(uuid, path) }
        return try T(from: ValueDecoder(value: value, path: path))
    }

    /// `value` as `T`, which the caller has checked it is.
    private static func cast<T>(_ value: Any, _ path: DecodingPath) throws -> T {
        guard let typed = value as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: path.codingPath, debugDescription: "Unexpected type."))
        }
        return typed
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let path: DecodingPath

    var codingPath: [any CodingKey] { path.codingPath }
    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Primitive.bool(value(key), path.appending(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try Primitive.string(value(key), path.appending(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try Primitive.double(value(key), path.appending(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try Primitive.throughFoundation(Float.self, value(key), path.appending(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Primitive.integer(value(key), path.appending(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Primitive.integer(value(key), path.appending(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Primitive.integer(value(key), path.appending(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try Primitive.integer(value(key), path.appending(key))
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueDecoder.decode(type, from: value(key), at: path.appending(key))
    }

    // `decodeIfPresent`, as JSONDecoder reads it (a missing member or `null` is `nil`), with one lookup: the
    // protocol's default looks the member up three times (`contains`, `decodeNil`, `decode`), and entities
    // are mostly optional members. The kinds entities hold; other widths keep the protocol's default.

    /// The value of `key` unless it is missing or `null`.
    private func presentValue(_ key: Key) -> JSONValue? {
        guard let value = object[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValue(key).map { try Primitive.bool($0, path.appending(key)) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValue(key).map { try Primitive.string($0, path.appending(key)) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentValue(key).map { try Primitive.double($0, path.appending(key)) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try presentValue(key).map { try Primitive.integer($0, path.appending(key)) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentValue(key).map { try ValueDecoder.decode(type, from: $0, at: path.appending(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: value(key), path: path.appending(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key), path: path.appending(key)).unkeyedContainer()
    }

    /// `JSONDecoder`'s: the value under `super`, or `null` when there is none.
    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: object["super"] ?? .null, path: .key("super", path))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, path: path.appending(key))
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let path: DecodingPath
    private(set) var currentIndex = 0

    init(elements: [JSONValue], path: DecodingPath) {
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element and its path, moving past it only when `decode` succeeds.
    private mutating func next<T>(_ type: Any.Type, _ decode: (JSONValue, DecodingPath) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: DecodingPath.index(currentIndex, path).codingPath,
                    debugDescription: "Unkeyed container is at end."))
        }
        let result = try decode(elements[currentIndex], .index(currentIndex, path))
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self,
                .init(
                    codingPath: DecodingPath.index(currentIndex, path).codingPath,
                    debugDescription: "Unkeyed container is at end."))
        }
        guard elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type, Primitive.bool) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type, Primitive.string) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type, Primitive.double) }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try next(type) { try Primitive.throughFoundation(Float.self, $0, $1) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type, Primitive.integer) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type, Primitive.integer) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type, Primitive.integer) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type, Primitive.integer) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type, Primitive.integer) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type, Primitive.integer) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type, Primitive.integer) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type, Primitive.integer) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type, Primitive.integer) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type, Primitive.integer) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try ValueDecoder.decode(type, from: $0, at: $1) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try ValueDecoder(value: $0, path: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try ValueDecoder(value: $0, path: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { ValueDecoder(value: $0, path: $1) }
    }
}

/// The primitive conversions, each as `JSONDecoder` makes it from the value's JSON text.
private enum Primitive {
    static func bool(_ value: JSONValue, _ path: DecodingPath) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path) }
        return bool
    }

    static func string(_ value: JSONValue, _ path: DecodingPath) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path) }
        return string
    }

    /// An integer number converts when it fits; another number when it is whole (`34.0`), as `JSONDecoder`
    /// reads it through a `Double` below 2^53 in magnitude.
    static func integer<T: FixedWidthInteger & Decodable>(_ value: JSONValue, _ path: DecodingPath) throws -> T {
        guard case .number(let number) = value else { throw mismatch(T.self, value, path) }
        let result: T? =
            switch number {
            case .integer(let integer): T(exactly: integer)
            case .bigInteger(let digits): T(digits)
            // Beyond 2^53 `JSONDecoder` reads the text as a `Decimal`, which the shortest text of a double
            // may not equal exactly: decode that text as it does.
            case .double(let double) where double.magnitude >= 0x1p53:
                try throughFoundation(T.self, value, path)
            case .double(let double): T(exactly: double)
            }
        guard let result else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path.codingPath, debugDescription: "The number does not fit in \(T.self)."))
        }
        return result
    }

    /// Any number within `Double`'s range.
    static func double(_ value: JSONValue, _ path: DecodingPath) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path) }
        let double = number.doubleValue
        guard double.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path.codingPath, debugDescription: "The number does not fit in Double."))
        }
        return double
    }

    static func date(_ value: JSONValue, _ path: DecodingPath) throws -> Date {
        let text = try string(value, path)
        guard let date = ISO8601Timestamp.date(from: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: path.codingPath,
                    debugDescription: "Expected an ISO 8601 date-time such as 2024-05-01T09:30:00.250Z."))
        }
        return date
    }

    static func data(_ value: JSONValue, _ path: DecodingPath) throws -> Data {
        let text = try string(value, path)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path.codingPath, debugDescription: "Encountered Data is not valid Base64."))
        }
        return data
    }

    static func url(_ value: JSONValue, _ path: DecodingPath) throws -> URL {
        let text = try string(value, path)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path.codingPath, debugDescription: "Invalid URL string."))
        }
        return url
    }

    /// Types `JSONDecoder` reads from a number's own text (`Float`, `Decimal`): decoded by it from this
    /// value's text, so they come out exactly as they always did.
    static func throughFoundation<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: DecodingPath) throws -> T {
        do {
            return try CloudantJSONCoding.sharedDecoder.decode(T.self, from: value.jsonData())
        } catch DecodingError.dataCorrupted(let context) {
            throw DecodingError.dataCorrupted(.init(codingPath: path.codingPath, debugDescription: context.debugDescription))
        } catch DecodingError.typeMismatch(let type, let context) {
            throw DecodingError.typeMismatch(type, .init(codingPath: path.codingPath, debugDescription: context.debugDescription))
        } catch DecodingError.valueNotFound(let type, let context) {
            throw DecodingError.valueNotFound(type, .init(codingPath: path.codingPath, debugDescription: context.debugDescription))
        }
    }

    /// `valueNotFound` for `null`, `typeMismatch` for another kind of value.
    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: DecodingPath) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: path.codingPath, debugDescription: "Found null."))
        }
        return .typeMismatch(type, .init(codingPath: path.codingPath, debugDescription: "Found another kind of value."))
    }
}
