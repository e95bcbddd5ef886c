/// JSON values as CouchDB's Erlang sees them (decoded by jiffy: strings are binaries, `true`, `false` and
/// `null` atoms, arrays lists, objects `{[{Key, Value}, …]}`), for what depends on that form:
/// `_approx_count_distinct` hashes a key's external term format (`term_to_binary`), and some of CouchDB's
/// messages print a value with `~p`.
enum ErlangTerm {
    /// `term_to_binary(Value)` as Erlang/OTP 26 writes it.
    static func externalFormat(of value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = [131]
        append(value, to: &bytes)
        return bytes
    }

    private static func append(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: appendAtom("null", to: &bytes)
        case .bool(let flag): appendAtom(flag ? "true" : "false", to: &bytes)
        case .number(let number): appendNumber(number, to: &bytes)
        case .string(let text):
            bytes.append(109)  // BINARY_EXT
            appendUInt32(UInt32(text.utf8.count), to: &bytes)
            bytes += text.utf8
        case .array(let elements):
            if elements.isEmpty {
                bytes.append(106)  // NIL_EXT
            } else if elements.count < 65536, let small = smallIntegers(elements) {
                bytes.append(107)  // STRING_EXT: a list of integers 0…255
                bytes.append(UInt8(small.count >> 8))
                bytes.append(UInt8(small.count & 0xFF))
                bytes += small
            } else {
                bytes.append(108)  // LIST_EXT
                appendUInt32(UInt32(elements.count), to: &bytes)
                for element in elements { append(element, to: &bytes) }
                bytes.append(106)
            }
        case .object(let object):
            bytes += [104, 1]  // SMALL_TUPLE_EXT {Members}
            if object.members.isEmpty {
                bytes.append(106)
                return
            }
            bytes.append(108)
            appendUInt32(UInt32(object.members.count), to: &bytes)
            for (key, member) in object.members {
                bytes += [104, 2]
                append(.string(key), to: &bytes)
                append(member, to: &bytes)
            }
            bytes.append(106)
        }
    }

    private static func smallIntegers(_ elements: [JSONValue]) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .number(.integer(let value)) = element, (0...255).contains(value) else { return nil }
            result.append(UInt8(value))
        }
        return result
    }

    private static func appendAtom(_ name: String, to bytes: inout [UInt8]) {
        bytes.append(119)  // SMALL_ATOM_UTF8_EXT
        bytes.append(UInt8(name.utf8.count))
        bytes += name.utf8
    }

    private static func appendNumber(_ number: JSONNumber, to bytes: inout [UInt8]) {
        switch number {
        case .integer(let value):
            if (0...255).contains(value) {
                bytes += [97, UInt8(value)]  // SMALL_INTEGER_EXT
            } else if value >= Int64(Int32.min), value <= Int64(Int32.max) {
                bytes.append(98)  // INTEGER_EXT
                appendUInt32(UInt32(bitPattern: Int32(value)), to: &bytes)
            } else {
                appendBig(negative: value < 0, magnitude: littleEndianBytes(of: value.magnitude), to: &bytes)
            }
        case .bigInteger(let digits):
            appendBig(negative: digits.hasPrefix("-"), magnitude: littleEndianBytes(ofDecimal: digits), to: &bytes)
        case .double(let value):
            bytes.append(70)  // NEW_FLOAT_EXT
            let bits = value.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
    }

    private static func appendBig(negative: Bool, magnitude: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(110)  // SMALL_BIG_EXT
        bytes.append(UInt8(magnitude.count))
        bytes.append(negative ? 1 : 0)
        bytes += magnitude
    }

    private static func littleEndianBytes(of value: UInt64) -> [UInt8] {
        var result: [UInt8] = []
        var rest = value
        while rest > 0 {
            result.append(UInt8(rest & 0xFF))
            rest >>= 8
        }
        return result
    }

    /// The base-256 digits of a decimal integer's magnitude, least significant first.
    private static func littleEndianBytes(ofDecimal digits: String) -> [UInt8] {
        var decimal = digits.utf8.filter { $0 != UInt8(ascii: "-") }.map { Int($0) - 48 }
        var result: [UInt8] = []
        while !(decimal.isEmpty || decimal.allSatisfy { $0 == 0 }) {
            var remainder = 0
            var quotient: [Int] = []
            for digit in decimal {
                let current = remainder * 10 + digit
                let next = current / 256
                remainder = current % 256
                if !quotient.isEmpty || next != 0 { quotient.append(next) }
            }
            result.append(UInt8(remainder))
            decimal = quotient
        }
        return result
    }

    private static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// A value as Erlang's `~p` prints the term: `<<"text">>`, `[1,2]`, `{[{<<"a">>,1}]}`, `null`.
    static func format(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): JSONValue.number(number).jsonString()
        case .string(let text): "<<" + JSONValue.string(text).jsonString() + ">>"
        case .array(let elements): "[" + elements.map(format).joined(separator: ",") + "]"
        case .object(let object):
            "{[" + object.members.map { "{" + format(.string($0.key)) + "," + format($0.value) + "}" }.joined(separator: ",") + "]}"
        }
    }
}
