/// Writes Erlang's external term format, the bytes of `term_to_binary(Term, [{minor_version, 1}])`, for the
/// terms CouchDB builds from JSON (its "EJSON"): the input CouchDB hashes to mint a revision id.
///
/// CouchDB decodes JSON with jiffy into EJSON and hashes `term_to_binary/2` of a list holding the body
/// (``RevisionHash``). To give the same revision ids, the bytes here are the ones the Erlang runtime writes
/// for the same terms (erts `external.c`):
///
/// | JSON (EJSON term)                          | tag                                                   |
/// |--------------------------------------------|-------------------------------------------------------|
/// | `true`, `false`, `null` (atoms)            | `ATOM_EXT` (100): minor version 1 writes Latin-1 atoms |
/// | integer 0…255                              | `SMALL_INTEGER_EXT` (97)                              |
/// | other integer in −2³¹…2³¹−1                | `INTEGER_EXT` (98), 4 bytes big-endian                |
/// | any larger integer (Erlang bignum)         | `SMALL_BIG_EXT` (110) / `LARGE_BIG_EXT` (111), little-endian magnitude |
/// | number with a fraction or exponent (float) | `NEW_FLOAT_EXT` (70), IEEE 754 big-endian            |
/// | string (binary)                            | `BINARY_EXT` (109), UTF-8 bytes                       |
/// | array (list)                               | `NIL_EXT` (106) when empty; `STRING_EXT` (107) when every element is an integer 0…255 and there are fewer than 65,536; else `LIST_EXT` (108) … `NIL_EXT` |
/// | object (`{[{Key, Value}, …]}`)             | a 1-tuple (`SMALL_TUPLE_EXT`, 104) of the list of 2-tuples of name and value, in written order |
///
/// ```swift
/// var writer = ErlangTermWriter()
/// writer.writeVersion()
/// writer.writeEJSON(["a": 1])     // 131, 104,1, 108,0,0,0,1, 104,2, 109,0,0,0,1,"a", 97,1, 106
/// ```
public struct ErlangTermWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    /// Whether objects are written with their members in the byte order of their names (at every depth)
    /// rather than as written: the term of a body stored with sorted members.
    package var sortsMembers = false

    /// Starts an empty output, reserving `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The format's version byte (131), which starts every `term_to_binary` output.
    public mutating func writeVersion() { bytes.append(131) }

    /// An atom spelled in Latin-1 (`ATOM_EXT`), as `term_to_binary` writes one at minor version 1.
    public mutating func writeAtom(_ name: StaticString) {
        bytes.append(100)
        appendUInt16(UInt16(name.utf8CodeUnitCount))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `true` or `false`.
    public mutating func writeBoolean(_ value: Bool) { value ? writeAtom("true") : writeAtom("false") }

    /// An integer, in the smallest encoding Erlang uses for it.
    public mutating func writeInteger(_ value: Int64) {
        if (0...255).contains(value) {
            bytes.append(97)
            bytes.append(UInt8(value))
        } else if (Int64(Int32.min)...Int64(Int32.max)).contains(value) {
            bytes.append(98)
            appendUInt32(UInt32(bitPattern: Int32(value)))
        } else {
            var magnitude = value.magnitude
            var digits: [UInt8] = []
            while magnitude > 0 {
                digits.append(UInt8(truncatingIfNeeded: magnitude))
                magnitude >>= 8
            }
            writeBig(negative: value < 0, littleEndianMagnitude: digits)
        }
    }

    /// An integer given by its decimal digits (with a leading `-` when negative), such as a JSON integer too
    /// large for 64 bits: Erlang keeps it exactly, as a bignum.
    ///
    /// - Returns: `false`, writing nothing, when `decimal` is not an optional `-` followed by digits.
    @discardableResult
    public mutating func writeInteger(decimal: String) -> Bool {
        var text = Substring(decimal)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return false }
        if text.utf8.count <= 18, let small = Int64(text) {
            writeInteger(negative ? -small : small)
            return true
        }
        // Base 10 to base 256, least significant byte first: repeated division of the decimal digits by 256.
        var decimalDigits = text.utf8.map { UInt32($0 - 48) }
        var magnitude: [UInt8] = []
        while !(decimalDigits.count == 1 && decimalDigits[0] == 0) && !decimalDigits.isEmpty {
            var remainder: UInt32 = 0
            var quotient: [UInt32] = []
            quotient.reserveCapacity(decimalDigits.count)
            for digit in decimalDigits {
                let current = remainder * 10 + digit
                let next = current / 256
                remainder = current % 256
                if !quotient.isEmpty || next != 0 { quotient.append(next) }
            }
            magnitude.append(UInt8(remainder))
            decimalDigits = quotient
        }
        if magnitude.count <= 4 {
            // Within 32 bits: the small encodings above apply (the parser only hands over beyond-64-bit text).
            var value: Int64 = 0
            for byte in magnitude.reversed() { value = value << 8 | Int64(byte) }
            writeInteger(negative ? -value : value)
        } else {
            writeBig(negative: negative, littleEndianMagnitude: magnitude)
        }
        return true
    }

    private mutating func writeBig(negative: Bool, littleEndianMagnitude digits: [UInt8]) {
        if digits.count <= 255 {
            bytes.append(110)
            bytes.append(UInt8(digits.count))
        } else {
            bytes.append(111)
            appendUInt32(UInt32(digits.count))
        }
        bytes.append(negative ? 1 : 0)
        bytes.append(contentsOf: digits)
    }

    /// A float (`NEW_FLOAT_EXT`): its IEEE 754 bits, big-endian, negative zero included.
    public mutating func writeFloat(_ value: Double) {
        bytes.append(70)
        let bits = value.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    /// A binary (`BINARY_EXT`).
    public mutating func writeBinary(_ content: some Collection<UInt8>) {
        bytes.append(109)
        appendUInt32(UInt32(content.count))
        bytes.append(contentsOf: content)
    }

    /// A string as the binary of its UTF-8 bytes, as jiffy decodes a JSON string.
    public mutating func writeBinary(_ string: String) {
        var string = string
        string.withUTF8 { writeBinary($0) }
    }

    /// The start of a tuple of `arity` elements; write the elements next.
    public mutating func writeTupleHeader(arity: Int) {
        if arity <= 255 {
            bytes.append(104)
            bytes.append(UInt8(arity))
        } else {
            bytes.append(105)
            appendUInt32(UInt32(arity))
        }
    }

    /// The start of a proper list of `count` (> 0) elements; write the elements, then ``writeNil()``.
    public mutating func writeListHeader(count: Int) {
        bytes.append(108)
        appendUInt32(UInt32(count))
    }

    /// The empty list, which also ends every proper list.
    public mutating func writeNil() { bytes.append(106) }

    /// A JSON value as the EJSON term jiffy decodes it to (see the table in the type's discussion).
    public mutating func writeEJSON(_ value: JSONValue) {
        switch value {
        case .null: writeAtom("null")
        case .bool(let flag): writeBoolean(flag)
        case .number(let number): writeNumber(number)
        case .string(let string): writeBinary(string)
        case .array(let elements): writeList(elements)
        case .object(let object): writeEJSON(object)
        }
    }

    /// A JSON object as EJSON: `{[{Name, Value}, …]}`, members in written order.
    public mutating func writeEJSON(_ object: JSONObject) {
        writeTupleHeader(arity: 1)
        writeProplist(object.members)
    }

    /// The list of `{Name, Value}` 2-tuples of an object's members (what a body's 1-tuple holds).
    public mutating func writeProplist(_ members: some Collection<(key: String, value: JSONValue)>) {
        guard !members.isEmpty else { return writeNil() }
        writeListHeader(count: members.count)
        // A body built sorted (an import's) is checked in one pass rather than sorted again at every depth.
        if sortsMembers, !Self.inNameOrder(members) {
            for member in members.sorted(by: { JSONWriter.precedesInUTF8($0.key, $1.key) }) { writeMember(member) }
        } else {
            for member in members { writeMember(member) }
        }
        writeNil()
    }

    private mutating func writeMember(_ member: (key: String, value: JSONValue)) {
        writeTupleHeader(arity: 2)
        writeBinary(member.key)
        writeEJSON(member.value)
    }

    private static func inNameOrder(_ members: some Collection<(key: String, value: JSONValue)>) -> Bool {
        var previous: String?
        for member in members {
            if let previous, !JSONWriter.precedesInUTF8(previous, member.key) { return false }
            previous = member.key
        }
        return true
    }

    private mutating func writeNumber(_ number: JSONNumber) {
        switch number {
        case .integer(let value): writeInteger(value)
        case .bigInteger(let digits): if !writeInteger(decimal: digits) { writeFloat(number.doubleValue) }
        case .double(let value): writeFloat(value)
        }
    }

    private mutating func writeList(_ elements: [JSONValue]) {
        guard !elements.isEmpty else { return writeNil() }
        // A list of bytes is what Erlang calls a string, and `term_to_binary` packs it as one.
        if elements.count < 65_536, elements.allSatisfy(Self.isByte) {
            bytes.append(107)
            appendUInt16(UInt16(elements.count))
            for case .number(.integer(let value)) in elements { bytes.append(UInt8(value)) }
            return
        }
        writeListHeader(count: elements.count)
        for element in elements { writeEJSON(element) }
        writeNil()
    }

    private static func isByte(_ value: JSONValue) -> Bool {
        if case .number(.integer(let integer)) = value { return (0...255).contains(integer) }
        return false
    }

    private mutating func appendUInt16(_ value: UInt16) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func appendUInt32(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
