/// How a view's keys become the bytes its index orders rows by: CouchDB's collation (``CollationKey``), or
/// Erlang's term order for a view with `"collation": "raw"` (``RawCollationKey``).
///
/// Both encodings are self-delimiting, so the bytes of an array key's first `n` elements can be found without
/// decoding the key: a `group_level` query groups rows by that prefix, and two keys group together exactly
/// when their prefixes are equal bytes.
///
/// ```swift
/// let key = ViewKeyEncoding.collation.key(["2024", "05", "17"])
/// ViewKeyEncoding.collation.groupPrefixLength(of: key, level: 2)   // the bytes of ["2024", "05"] without its end
/// ```
public enum ViewKeyEncoding: Sendable, Hashable {
    /// CouchDB's view collation.
    case collation
    /// Erlang's term order (`"options": {"collation": "raw"}`).
    case raw

    /// The bytes of `key`.
    public func key(_ key: JSONValue) -> [UInt8] {
        switch self {
        case .collation: CollationKey.of(key)
        case .raw: RawCollationKey.of(key)
        }
    }

    /// Appends the bytes of `key`.
    public func append(_ key: JSONValue, to bytes: inout [UInt8]) {
        switch self {
        case .collation: CollationKey.append(key, to: &bytes)
        case .raw: RawCollationKey.append(key, to: &bytes)
        }
    }

    /// The length of the bytes that decide `group_level = level` for `key`: the array's type byte and its first
    /// `level` elements (all of them when it has fewer, without the array's terminator, so an array of
    /// exactly `level` elements groups with longer ones starting the same); the whole key when it is no
    /// array, which groups by itself.
    public func groupPrefixLength(of key: some Collection<UInt8>, level: Int, from start: Int = 0) -> Int {
        key.withContiguousStorageIfAvailable { groupPrefix(in: $0, level: level, from: start).length }
            ?? Array(key).withUnsafeBufferPointer { groupPrefix(in: $0, level: level, from: start).length }
    }

    /// ``groupPrefixLength(of:level:from:)`` of a key in place, and whether the prefix is complete: an array
    /// key's type byte and `level` whole elements. Every key that starts with a complete prefix's bytes is in
    /// its group (the encoding is self-delimiting), so a reduce reading keys in order compares those bytes
    /// instead of measuring each key's prefix again.
    public func groupPrefix(in bytes: UnsafeBufferPointer<UInt8>, level: Int, from start: Int = 0) -> (length: Int, complete: Bool) {
        var position = start
        guard position < bytes.count else { return (bytes.count, false) }
        let arrayType: UInt8 = self == .collation ? CollationKey.TypeByte.array : RawCollationKey.TypeByte.array
        guard bytes[position] == arrayType else { return (bytes.count, false) }
        position += 1
        for _ in 0..<level {
            guard position < bytes.count, bytes[position] != 0 else { return (position, false) }
            position = skipValue(in: bytes, at: position)
        }
        return (position, true)
    }

    /// The position just past the encoded value starting at `position`.
    public func skipValue(_ bytes: [UInt8], at position: Int) -> Int {
        bytes.withUnsafeBufferPointer { skipValue(in: $0, at: position) }
    }

    private func skipValue(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int {
        switch self {
        case .collation: CollationKey.skipValue(bytes, at: position)
        case .raw: RawCollationKey.skipValue(bytes, at: position)
        }
    }
}

extension CollationKey {
    /// The position just past the value whose key starts at `position` (see the layout in ``CollationKey``).
    static func skipValue(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        var position = start
        let type = bytes[position]
        position += 1
        switch type {
        case TypeByte.number:
            return skipNumber(bytes, at: position)
        case TypeByte.string:
            return skipString(bytes, at: position)
        case TypeByte.array:
            while position < bytes.count, bytes[position] != terminator { position = skipValue(bytes, at: position) }
            return min(bytes.count, position + 1)
        case TypeByte.object:
            while position < bytes.count, bytes[position] == memberMarker {
                position = skipString(bytes, at: position + 1)
                position = skipValue(bytes, at: position)
            }
            return min(bytes.count, position + 1)
        default:
            return position
        }
    }

    /// Past a number: 8 bytes, and 9 more when its magnitude is 2^53 or more.
    static func skipNumber(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int {
        guard position + 8 <= bytes.count else { return bytes.count }
        var ordered: UInt64 = 0
        for byte in bytes[position..<position + 8] { ordered = ordered << 8 | UInt64(byte) }
        let bits = ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered
        let value = Double(bitPattern: bits)
        return value.magnitude >= 9_007_199_254_740_992.0 ? min(bytes.count, position + 17) : position + 8
    }

    /// Past a string's sort key: its first `0x00` is its end.
    static func skipString(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == terminator { break }
        }
        return position
    }
}
