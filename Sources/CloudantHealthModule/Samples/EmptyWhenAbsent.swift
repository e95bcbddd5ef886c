/// A collection member of a sample's ``HealthSample/Values`` that reads as empty when a document leaves its
/// key out or writes `null` (older exports and documents written before the member existed), and is always
/// written, empty or not.
///
/// ```swift
/// public struct WorkoutSampleValues: HealthSampleValues {
///     @EmptyWhenAbsent public var events: [WorkoutEvent]
/// }
/// ```
@propertyWrapper
public struct EmptyWhenAbsent<Value: EmptyWhenAbsentCollection>: Codable {
    /// The collection.
    public var wrappedValue: Value

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    /// Reads the collection itself (the key's absence is handled by the keyed container).
    public init(from decoder: any Decoder) throws {
        wrappedValue = try Value(from: decoder)
    }

    /// Writes the collection itself, as if unwrapped.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

/// A collection that ``EmptyWhenAbsent`` can default to empty: arrays and dictionaries of codable values.
public protocol EmptyWhenAbsentCollection: Codable {
    /// The empty collection.
    init()
}

extension EmptyWhenAbsent: Equatable where Value: Equatable {}
extension EmptyWhenAbsent: Hashable where Value: Hashable {}
extension EmptyWhenAbsent: Sendable where Value: Sendable {}

/// An array defaults to `[]`.
extension Array: EmptyWhenAbsentCollection where Element: Codable {}
/// A dictionary defaults to `[:]`.
extension Dictionary: EmptyWhenAbsentCollection where Key: Codable, Value: Codable {}

/// Synthesized decoding of an ``EmptyWhenAbsent`` member: an absent key is not an error.
extension KeyedDecodingContainer {
    /// Reads an ``EmptyWhenAbsent`` member, empty when the key is absent or `null`.
    public func decode<Value>(
        _ type: EmptyWhenAbsent<Value>.Type, forKey key: Key
    ) throws -> EmptyWhenAbsent<Value> {
        try decodeIfPresent(type, forKey: key) ?? EmptyWhenAbsent(wrappedValue: Value())
    }
}
