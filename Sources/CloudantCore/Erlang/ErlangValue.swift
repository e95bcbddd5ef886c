/// A term in Erlang's external format, as `binary_to_term/1` reads what ``ErlangTermWriter`` writes: the
/// subset CouchDB's opaque sequences hold (integers, atoms, binaries, lists, tuples, floats).
public indirect enum ErlangValue: Sendable, Hashable {
    /// An integer that fits in 64 bits (`SMALL_INTEGER_EXT`, `INTEGER_EXT`, `SMALL_BIG_EXT`).
    case integer(Int64)
    /// A float (`NEW_FLOAT_EXT`).
    case float(Double)
    /// An atom, by its name.
    case atom(String)
    /// A binary's bytes.
    case binary([UInt8])
    /// A proper list (a `STRING_EXT` reads as its small integers).
    case list([ErlangValue])
    /// A tuple's elements.
    case tuple([ErlangValue])

    /// Reads one term after the version byte (131). Nil for anything else: a truncated or malformed term, a
    /// compressed one, an integer beyond 64 bits, a tag outside the subset, or nesting deeper than `maximumDepth`
    /// (the bytes come from clients).
    public init?(externalFormat bytes: [UInt8], maximumDepth: Int = 32) {
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        guard reader.byte() == 131, let value = reader.value(depth: 0), reader.position == bytes.count else { return nil }
        self = value
    }

    private struct Reader {
        let bytes: [UInt8]
        let maximumDepth: Int
        var position = 0

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - position >= count else { return nil }
            defer { position += count }
            return bytes[position..<(position + count)]
        }

        mutating func unsigned(_ width: Int) -> Int? {
            guard let part = take(width) else { return nil }
            return part.reduce(0) { $0 << 8 | Int($1) }
        }

        mutating func value(depth: Int) -> ErlangValue? {
            guard depth <= maximumDepth, let tag = byte() else { return nil }
            switch tag {
            case 97: return byte().map { .integer(Int64($0)) }
            case 98: return unsigned(4).map { .integer(Int64(Int32(truncatingIfNeeded: $0))) }
            case 110:
                guard let count = byte(), let sign = byte(), count <= 8, let magnitude = take(Int(count)) else { return nil }
                let value = magnitude.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard value <= UInt64(Int64.max) else { return nil }
                return .integer(sign == 0 ? Int64(value) : -Int64(value))
            case 70:
                return unsigned(8).map { .float(Double(bitPattern: UInt64(truncatingIfNeeded: $0))) }
            case 100, 118:
                guard let length = unsigned(2), let name = take(length) else { return nil }
                return .atom(String(decoding: name, as: UTF8.self))
            case 115, 119:
                guard let length = byte(), let name = take(Int(length)) else { return nil }
                return .atom(String(decoding: name, as: UTF8.self))
            case 109:
                guard let length = unsigned(4), let content = take(length) else { return nil }
                return .binary(Array(content))
            case 106: return .list([])
            case 107:
                // A list of small integers, written as their bytes.
                guard let length = unsigned(2), let content = take(length) else { return nil }
                return .list(content.map { .integer(Int64($0)) })
            case 108:
                guard let count = unsigned(4), count <= bytes.count - position else { return nil }
                var elements: [ErlangValue] = []
                for _ in 0..<count {
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                }
                // Only proper lists: the tail is `[]`.
                guard byte() == 106 else { return nil }
                return .list(elements)
            case 104, 105:
                guard let arity = tag == 104 ? byte().map(Int.init) : unsigned(4), arity <= bytes.count - position else { return nil }
                var elements: [ErlangValue] = []
                for _ in 0..<arity {
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                }
                return .tuple(elements)
            default:
                return nil
            }
        }
    }
}
