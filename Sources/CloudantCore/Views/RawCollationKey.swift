/// A byte string whose plain byte order is Erlang's term order of the value CouchDB decodes a JSON key into:
/// how a view with `"options": {"collation": "raw"}` orders its rows (`couch_btree`'s default `<`).
///
/// Numbers < `false` < `null` < `true` < objects < arrays < strings; numbers by value; strings by their
/// UTF-8 bytes; arrays element by element, a prefix first; objects (`{[{Key, Value}, …]}`) member by
/// member in stored order, a prefix first.
///
/// Layout: a type byte, then
/// - numbers: as in ``CollationKey`` (8 bytes, 9 more from 2^53);
/// - strings: the bytes with `0x00` written `0x00 0xFF`, ended by `0x00 0x00`;
/// - arrays: each element, then `0x00`;
/// - objects: `0x01`, the member name as a string's bytes and the value, per member, then `0x00`.
public enum RawCollationKey {
    enum TypeByte {
        static let number: UInt8 = 0x01
        static let `false`: UInt8 = 0x02
        static let null: UInt8 = 0x03
        static let `true`: UInt8 = 0x04
        static let object: UInt8 = 0x05
        static let array: UInt8 = 0x06
        static let string: UInt8 = 0x07
    }

    /// The key of a JSON value.
    public static func of(_ value: JSONValue) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(24)
        append(value, to: &key)
        return key
    }

    static func append(_ value: JSONValue, to key: inout [UInt8]) {
        switch value {
        case .number(let number):
            key.append(TypeByte.number)
            CollationKey.appendNumber(number, to: &key)
        case .bool(false): key.append(TypeByte.false)
        case .null: key.append(TypeByte.null)
        case .bool(true): key.append(TypeByte.true)
        case .object(let object):
            key.append(TypeByte.object)
            for (name, member) in object.members {
                key.append(0x01)
                appendBytes(name, to: &key)
                append(member, to: &key)
            }
            key.append(0x00)
        case .array(let elements):
            key.append(TypeByte.array)
            for element in elements { append(element, to: &key) }
            key.append(0x00)
        case .string(let text):
            key.append(TypeByte.string)
            appendBytes(text, to: &key)
        }
    }

    private static func appendBytes(_ text: String, to key: inout [UInt8]) {
        for byte in text.utf8 {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        key += [0x00, 0x00]
    }

    /// The position just past the value whose key starts at `position`.
    static func skipValue(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        var position = start
        let type = bytes[position]
        position += 1
        switch type {
        case TypeByte.number:
            return CollationKey.skipNumber(bytes, at: position)
        case TypeByte.string:
            return skipBytes(bytes, at: position)
        case TypeByte.array:
            while position < bytes.count, bytes[position] != 0 { position = skipValue(bytes, at: position) }
            return min(bytes.count, position + 1)
        case TypeByte.object:
            while position < bytes.count, bytes[position] == 0x01 {
                position = skipValue(bytes, at: skipBytes(bytes, at: position + 1))
            }
            return min(bytes.count, position + 1)
        default:
            return position
        }
    }

    private static func skipBytes(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        var position = start
        while position + 1 < bytes.count {
            if bytes[position] == 0 {
                if bytes[position + 1] == 0 { return position + 2 }
                position += 2
            } else {
                position += 1
            }
        }
        return bytes.count
    }
}
