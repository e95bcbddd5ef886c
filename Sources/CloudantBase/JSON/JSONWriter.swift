/// Writes `JSONValue`s as compact UTF-8 JSON into one growing byte buffer.
///
/// Why our own: Foundation's `JSONSerialization` writes about 8 MB/s on Linux (see
/// `swift-on-linux.md`), far too slow for a store that serialises every document it saves. The public entry
/// points are ``JSONValue/jsonBytes(sortedKeys:)`` and friends.
///
/// Output rules:
/// - No whitespace. Members in stored order, or sorted by the UTF-8 bytes of their names.
/// - Strings escape `"`, `\` and control characters (`\b \f \n \r \t`, others as `\u00XX`); `/` and non-ASCII
///   characters are written as they are.
/// - Integers as decimal digits. Doubles as Swift's shortest text that reads back to the same `Double`
///   (`0.1`, `1e-07`, `5e+20`, `1.0`): a double stays recognisably a double, so `1.0` read in is `1.0` written
///   out. Canonical numbers (see ``Options/canonicalNumbers``) write every integral double as an integer.
/// - A non-finite double (never produced by the parser, but constructible) is written as `null`, as
///   JavaScript's `JSON.stringify` does, because JSON has no way to spell it.
///
/// Nesting depth is not limited here: values read by the parser are at most 512 deep, and values built in
/// code are the caller's responsibility.
package struct JSONWriter {
    /// How to write.
    struct Options {
        /// Write object members sorted by the UTF-8 bytes of their names.
        var sortedKeys = false
        /// Write a double that equals an `Int64` as that integer (`1.0` → `1`, `-0.0` → `0`), so numbers are
        /// written by value alone and `1` and `1.0`, which compare equal, also serialise the same.
        var canonicalNumbers = false
    }

    private let options: Options
    package private(set) var output: [UInt8] = []
    /// Whether a double equal to an `Int64` was written as a double: then the output is not canonical.
    private(set) var wroteIntegralDouble = false
    /// Whether objects written in stored order are checked for name order (``wroteUnorderedObject``).
    private var checksObjectOrder = false
    /// Whether an object was written with its members out of name order (checked only while
    /// ``writeMembers(of:)`` writes).
    private var wroteUnorderedObject = false

    /// A writer of canonical JSON (``JSONValue/canonicalJSONBytes()``): sorted keys, numbers by value.
    package static func canonical(capacity: Int = 256) -> JSONWriter {
        JSONWriter(options: Options(sortedKeys: true, canonicalNumbers: true), capacity: capacity)
    }

    /// Empties the output, keeping its capacity, to write another value with the same writer.
    package mutating func removeAll() {
        output.removeAll(keepingCapacity: true)
        wroteIntegralDouble = false
        wroteUnorderedObject = false
    }

    /// Appends text the caller knows to be valid JSON punctuation or literals.
    package mutating func appendRaw(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    init(options: Options, capacity: Int = 256) {
        self.options = options
        output.reserveCapacity(capacity)
    }

    /// A writer of compact JSON, members in stored order, with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        self.init(options: Options(), capacity: capacity)
    }

    /// Appends bytes the caller knows to be valid JSON in this writer's format (the members of a body the
    /// store wrote with it, spliced into a document without parsing them).
    package mutating func appendRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.append(contentsOf: bytes)
    }

    /// Writes `value` with `options` and returns the bytes.
    static func bytes(of value: JSONValue, options: Options) -> [UInt8] {
        var writer = JSONWriter(options: options)
        writer.write(value)
        return writer.output
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: appendLiteral("null")
        case .bool(let flag): appendLiteral(flag ? "true" : "false")
        case .number(let number): write(number)
        case .string(let string): write(string)
        case .array(let elements):
            output.append(JSONByte.openBracket)
            var first = true
            for element in elements {
                if !first { output.append(JSONByte.comma) }
                first = false
                write(element)
            }
            output.append(JSONByte.closeBracket)
        case .object(let object):
            write(object)
        }
    }

    package mutating func write(_ object: JSONObject) {
        write(object, skipping: nil)
    }

    /// Writes `object` leaving out the members `skipping` names (the revision hash leaves out `_` members
    /// without copying the object).
    package mutating func write(_ object: JSONObject, skipping: ((String) -> Bool)?) {
        output.append(JSONByte.openBrace)
        let members = object.members
        var first = true
        if options.sortedKeys, members.count > 1, !Self.inUTF8Order(members) {
            let order = members.indices.sorted { Self.precedesInUTF8(members[$0].key, members[$1].key) }
            for index in order where !(skipping?(members[index].key) ?? false) {
                writeMember(members[index], first: first)
                first = false
            }
        } else {
            if checksObjectOrder, !wroteUnorderedObject, members.count > 1, !Self.inUTF8Order(members) {
                wroteUnorderedObject = true
            }
            for member in members where !(skipping?(member.key) ?? false) {
                writeMember(member, first: first)
                first = false
            }
        }
        output.append(JSONByte.closeBrace)
    }

    /// Writes `object` in stored order, and returns where each member (`"name":value`) lies in ``output``
    /// when every member's value is already in canonical form (no object inside it out of name order, no
    /// integral double): then the object's canonical JSON is `{`, those members sorted by name and joined
    /// by `,`, and `}`, without writing it again. Nil otherwise.
    package mutating func writeMembers(of object: JSONObject) -> [Range<Int>]? {
        checksObjectOrder = true
        defer { checksObjectOrder = false }
        let integralBefore = wroteIntegralDouble
        wroteIntegralDouble = false
        wroteUnorderedObject = false
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(object.members.count)
        output.append(JSONByte.openBrace)
        for (index, member) in object.members.enumerated() {
            let start = output.count + (index == 0 ? 0 : 1)
            writeMember(member, first: index == 0)
            ranges.append(start..<output.count)
        }
        output.append(JSONByte.closeBrace)
        let canonical = !wroteUnorderedObject && !wroteIntegralDouble
        wroteIntegralDouble = wroteIntegralDouble || integralBefore
        return canonical ? ranges : nil
    }

    /// Whether the members are already sorted by name (bodies built in sorted order, and bodies read back
    /// from the store, which keeps them sorted): then writing them needs no index array and no sort.
    package static func inUTF8Order(_ members: [(key: String, value: JSONValue)]) -> Bool {
        for index in members.indices.dropFirst() where !precedesInUTF8(members[index - 1].key, members[index].key) {
            return false
        }
        return true
    }

    @inline(__always)
    private mutating func writeMember(_ member: (key: String, value: JSONValue), first: Bool) {
        if !first { output.append(JSONByte.comma) }
        write(member.key)
        output.append(JSONByte.colon)
        write(member.value)
    }

    /// Whether `lhs` sorts before `rhs` by UTF-8 bytes (the same as by Unicode scalar values, and unlike
    /// `String.<`, independent of Unicode normalisation).
    package static func precedesInUTF8(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let shared = min(left.count, right.count)
                for index in 0..<shared where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
        if let fast, let result = fast { return result }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    // MARK: Scalars

    private mutating func appendLiteral(_ literal: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    package mutating func write(_ string: String) {
        var string = string
        // A native string is already contiguous, so this does not copy.
        string.withUTF8 { write(utf8: $0) }
    }

    /// Writes a JSON string of the text `utf8` holds (valid UTF-8, as a `String`'s bytes are), escaped: for
    /// text read in place, such as a column SQLite hands out, without making a `String` of it first.
    package mutating func write(utf8: UnsafeBufferPointer<UInt8>) {
        output.append(JSONByte.quote)
        var runStart = 0
        var index = Self.firstByteNeedingEscape(in: utf8, from: 0)
        while index < utf8.count {
            if runStart < index {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            appendEscape(for: utf8[index])
            runStart = index + 1
            index = Self.firstByteNeedingEscape(in: utf8, from: runStart)
        }
        if runStart < utf8.count {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        output.append(JSONByte.quote)
    }

    /// The index of the first byte at or after `start` that JSON must escape (a control character, `"` or
    /// `\\`), or `utf8.count`. Eight bytes at a time: most strings (and every long one measured: notes,
    /// CDA text) have nothing to escape, and the byte-by-byte scan was the writer's largest cost.
    static func firstByteNeedingEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = utf8.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= utf8.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                // A byte below 0x20, or equal to '"' or '\\', sets its high bit in `flagged` (the classic
                // "has a zero byte" test on word - 0x20…, word ^ '"'…, word ^ '\\'…; bytes ≥ 0x80 never match).
                let control = (word &- ones &* 0x20) & ~word
                let quote = word ^ (ones &* UInt64(JSONByte.quote))
                let backslash = word ^ (ones &* UInt64(JSONByte.backslash))
                let flagged = (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
                if flagged != 0 { break }
                index += 8
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte == JSONByte.quote || byte == JSONByte.backslash { return index }
            index += 1
        }
        return index
    }

    private mutating func appendEscape(for byte: UInt8) {
        output.append(JSONByte.backslash)
        switch byte {
        case JSONByte.quote, JSONByte.backslash: output.append(byte)
        case JSONByte.backspace: output.append(UInt8(ascii: "b"))
        case JSONByte.formFeed: output.append(UInt8(ascii: "f"))
        case JSONByte.lineFeed: output.append(UInt8(ascii: "n"))
        case JSONByte.carriageReturn: output.append(UInt8(ascii: "r"))
        case JSONByte.tab: output.append(UInt8(ascii: "t"))
        default:
            appendLiteral("u00")
            output.append(Self.hexDigits[Int(byte >> 4)])
            output.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func write(_ number: JSONNumber) {
        switch number {
        case .integer(let integer):
            write(integer)
        case .bigInteger(let digits):
            output.append(contentsOf: digits.utf8)
        case .double(let double):
            guard double.isFinite else {
                appendLiteral("null")
                return
            }
            if let integer = Int64(exactly: double) {
                if options.canonicalNumbers {
                    write(integer)
                    return
                }
                wroteIntegralDouble = true
            }
            // `description` is the shortest text that reads back to the same value, and always valid JSON
            // for finite values: "1.0", "0.1", "1e-07", "5e+20", "-0.0".
            output.append(contentsOf: double.description.utf8)
        }
    }

    mutating func write(_ integer: Int64) {
        if integer < 0 { output.append(JSONByte.minus) }
        var magnitude = integer.magnitude
        if magnitude < 10 {
            output.append(JSONByte.zero + UInt8(magnitude))
            return
        }
        // 20 digits hold UInt64.max; digits are produced last first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            while magnitude > 0 {
                start -= 1
                digits[start] = JSONByte.zero + UInt8(magnitude % 10)
                magnitude /= 10
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
