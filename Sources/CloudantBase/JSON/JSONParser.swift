/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Why our own: documents are parsed on every write and every read of the store, and the values must keep
/// 64-bit integers and member order exactly, which `JSONSerialization` does not. The public entry points
/// are the `JSONValue(parsing:)` initialisers.
///
/// What it accepts is exactly RFC 8259's grammar, UTF-8 only: no trailing commas, comments, single quotes,
/// `NaN`/`Infinity`, leading `+` or leading zeros; no byte order mark; no raw control characters in strings;
/// `\u` escapes must pair surrogates; the text must be well-formed UTF-8 and hold exactly one value.
///
/// Numbers: a literal without fraction or exponent that fits in `Int64` becomes ``JSONNumber/integer(_:)``,
/// a larger one ``JSONNumber/bigInteger(_:)`` with its digits as written;
/// every other number becomes ``JSONNumber/double(_:)``, correctly rounded. `-0` becomes `.double(-0.0)` so the
/// sign survives (as it does in JavaScript). A number beyond `Double`'s range is an error rather than infinity,
/// because infinity cannot be written back as JSON.
///
/// Objects: a repeated member name keeps its last value in its first place, as ``JSONObject/init(_:)`` does.
///
/// Nesting deeper than ``maximumDepth`` is an error, so hostile input cannot overflow the stack.
///
/// Errors are ``CloudantError/Code/invalidInput`` with the byte offset in ``CloudantError/Context/position``;
/// messages describe the problem and never quote the input, which may hold personal data.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 512

    /// Objects with more members than this after their sorted run find duplicate names through a dictionary
    /// instead of a scan.
    private static let linearDuplicateScanLimit = 12

    private let bytes: UnsafeBufferPointer<UInt8>
    /// The deepest nesting this parse accepts: ``maximumDepth`` unless a caller reading documents wrapped in
    /// an envelope (a replication peer's `_bulk_get` answer) allows for the envelope's levels.
    private let depthLimit: Int
    private var index = 0
    private var depth = 0
    /// Reused for strings with escapes, so only the final `String` allocates.
    private var scratch: [UInt8] = []
    // Members and elements of the containers being parsed, innermost last. Sharing one stack across all
    // levels means each finished container is copied once into an exactly sized array instead of growing
    // its own array step by step.
    private var memberStack: [(key: String, value: JSONValue)] = []
    private var elementStack: [JSONValue] = []
    /// Members the outermost object starts with (``parse(_:leadingMembers:)``).
    private var leadingMembers: [(key: String, value: JSONValue)] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int) {
        self.bytes = bytes
        self.depthLimit = depthLimit
    }

    /// Parses one JSON text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = maximumDepth) throws(CloudantError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, depthLimit: maximumDepth)
        return try parser.parseDocument()
    }

    /// Parses one JSON text whose outermost object gets `leading` in front of its own members, which lose
    /// members of those names, as ``JSONObject/prepending(_:)`` would: the object is built once, at its size,
    /// instead of being built and then moved along. A value that is not an object is returned as it is.
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, leadingMembers leading: [(key: String, value: JSONValue)]
    ) throws(CloudantError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, depthLimit: maximumDepth)
        parser.leadingMembers = leading
        return try parser.parseDocument()
    }

    private mutating func parseDocument() throws(CloudantError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw failure("JSON text starts with a byte order mark; remove the first three bytes.", at: 0)
        }
        skipWhitespace()
        guard index < bytes.count else {
            throw failure("The input holds no JSON value; send a value such as {}.", at: index)
        }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw failure("Unexpected characters after the JSON value; send exactly one value.", at: index)
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(CloudantError) -> JSONValue {
        guard index < bytes.count else {
            throw failure("The input ends where a value was expected; it may be truncated.", at: index)
        }
        switch bytes[index] {
        case JSONByte.openBrace: return try parseObject()
        case JSONByte.openBracket: return try parseArray()
        case JSONByte.quote: return .string(try parseString())
        case JSONByte.minus, JSONByte.zero ... JSONByte.nine: return .number(try parseNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw unexpectedValueStart()
        }
    }

    private func unexpectedValueStart() -> CloudantError {
        let message =
            switch bytes[index] {
            case UInt8(ascii: "+"): "Numbers must not start with '+'; remove it."
            case UInt8(ascii: "."): "Numbers need a digit before the decimal point; write 0.5, not .5."
            case UInt8(ascii: "N"), UInt8(ascii: "I"): "NaN and Infinity are not JSON; send null or a string instead."
            case JSONByte.slash, UInt8(ascii: "#"): "Comments are not allowed in JSON; remove them."
            case UInt8(ascii: "'"): "Strings must be in double quotes, not single quotes."
            case JSONByte.closeBracket, JSONByte.closeBrace: "A value is missing before this closing bracket."
            case JSONByte.comma: "A value is missing before this comma."
            default: "Expected a JSON value: an object, array, string, number, true, false or null."
            }
        return failure(message, at: index)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(CloudantError) {
        let length = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        for offset in 0..<length where index + offset >= bytes.count || bytes[index + offset] != expected[offset] {
            throw failure("Invalid literal; JSON's literals are true, false and null, in lowercase.", at: index + offset)
        }
        index += length
    }

    // MARK: Containers

    private mutating func enterContainer() throws(CloudantError) {
        depth += 1
        guard depth <= depthLimit else {
            throw failure(
                "Arrays and objects are nested more than \(depthLimit) levels deep; flatten the document.",
                at: index)
        }
        index += 1
        skipWhitespace()
    }

    /// The position of the member named `key` among `range` of `memberStack`, whose names ascend strictly in
    /// byte order, found by bisection.
    private func sortedPosition(of key: String, in range: Range<Int>) -> Int? {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if JSONWriter.precedesInUTF8(memberStack[middle].key, key) { low = middle + 1 } else { high = middle }
        }
        guard low < range.upperBound, JSONObject.sameName(memberStack[low].key, key) else { return nil }
        return low
    }

    private mutating func parseObject() throws(CloudantError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        if index < bytes.count, bytes[index] == JSONByte.closeBrace {
            index += 1
            return .object(depth == 1 ? JSONObject(uniqueMembers: leadingMembers) : JSONObject())
        }
        let base = memberStack.count
        // Built only once the members out of order outgrow a linear scan; maps a name to its position in
        // `memberStack`. Names are compared by their bytes, as JSONObject does: canonically equivalent spellings
        // are distinct.
        var positionByKey: [JSONMemberName: Int] = [:]
        // How many members from `base` came in strictly ascending byte order before the first one out of order
        // (all of them while `ascending`): that run is searched by bisection, the rest one by one.
        var sortedCount = 0
        var ascending = true
        while true {
            guard index < bytes.count, bytes[index] == JSONByte.quote else {
                throw failure("Expected a member name in double quotes.", at: index)
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == JSONByte.colon else {
                throw failure("Expected ':' after a member name.", at: index)
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()

            let memberCount = memberStack.count - base
            if ascending, memberCount == 0 || JSONWriter.precedesInUTF8(memberStack[memberStack.count - 1].key, key) {
                // Names so far in strictly ascending byte order (what an encoder with sorted keys writes): this
                // one is greater than all before it, so it repeats none of them.
                memberStack.append((key, value))
                sortedCount = memberCount + 1
            } else if positionByKey.isEmpty, memberCount - sortedCount < Self.linearDuplicateScanLimit {
                // A sorted body with members added after it (a care version: the entity's sorted JSON, then the
                // store's own members): bisect the sorted run, scan the few after it.
                ascending = false
                if let existing = sortedPosition(of: key, in: base..<(base + sortedCount))
                    ?? memberStack[(base + sortedCount)...].firstIndex(where: { JSONObject.sameName($0.key, key) })
                {
                    memberStack[existing].value = value
                } else {
                    memberStack.append((key, value))
                }
            } else {
                ascending = false
                if positionByKey.isEmpty {
                    for position in base..<memberStack.count { positionByKey[JSONMemberName(memberStack[position].key)] = position }
                }
                if let existing = positionByKey[JSONMemberName(key)] {
                    memberStack[existing].value = value
                } else {
                    positionByKey[JSONMemberName(key)] = memberStack.count
                    memberStack.append((key, value))
                }
            }

            guard try endOfItem(closing: JSONByte.closeBrace) else { continue }
            let members: [(key: String, value: JSONValue)]
            if depth == 1, !leadingMembers.isEmpty {
                var seeded = leadingMembers
                seeded.reserveCapacity(seeded.count + memberStack.count - base)
                for member in memberStack[base...] where !JSONObject.isNamed(member.key, amongst: leadingMembers) {
                    seeded.append(member)
                }
                members = seeded
            } else {
                members = Array(memberStack[base...])
            }
            memberStack.removeSubrange(base...)
            return .object(JSONObject(uniqueMembers: members))
        }
    }

    private mutating func parseArray() throws(CloudantError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        if index < bytes.count, bytes[index] == JSONByte.closeBracket {
            index += 1
            return .array([])
        }
        let base = elementStack.count
        while true {
            elementStack.append(try parseValue())
            guard try endOfItem(closing: JSONByte.closeBracket) else { continue }
            let elements = Array(elementStack[base...])
            elementStack.removeSubrange(base...)
            return .array(elements)
        }
    }

    /// What follows an object's member or an array's element: a `,` (consumed with the white space after it;
    /// `false`, another item follows) or the container's `closer` (consumed; `true`). Objects and arrays share
    /// it so an early end, a trailing comma and a missing separator are refused alike, the message naming the
    /// container. Always inlined: it runs once per member of every document parsed.
    @inline(__always)
    private mutating func endOfItem(closing closer: UInt8) throws(CloudantError) -> Bool {
        let isObject = closer == JSONByte.closeBrace
        skipWhitespace()
        guard index < bytes.count else {
            throw failure("The input ends inside \(isObject ? "an object" : "an array"); it may be truncated.", at: index)
        }
        switch bytes[index] {
        case JSONByte.comma:
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == closer {
                throw failure("Trailing comma before '\(isObject ? "}" : "]")'; remove it.", at: index)
            }
            return false
        case closer:
            index += 1
            return true
        default:
            throw failure(
                isObject ? "Expected ',' or '}' after an object member." : "Expected ',' or ']' after an array element.",
                at: index)
        }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case JSONByte.space, JSONByte.lineFeed, JSONByte.carriageReturn, JSONByte.tab: index += 1
            default: return
            }
        }
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote.
    private mutating func parseString() throws(CloudantError) -> String {
        index += 1
        let start = index
        // The common case: no escapes, so the string is a slice of the input.
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20, byte < 0x80, byte != JSONByte.quote, byte != JSONByte.backslash {
                index += 1
            } else if byte == JSONByte.quote {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            } else if byte == JSONByte.backslash {
                return try parseEscapedString(from: start)
            } else if byte >= 0x80 {
                index = try endOfUTF8Sequence(at: index)
            } else {
                throw controlCharacterFailure()
            }
        }
        throw failure("The input ends inside a string; a closing '\"' is missing.", at: index)
    }

    /// Continues a string at its first backslash, decoding into `scratch`.
    private mutating func parseEscapedString(from start: Int) throws(CloudantError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20, byte < 0x80, byte != JSONByte.quote, byte != JSONByte.backslash {
                scratch.append(byte)
                index += 1
            } else if byte == JSONByte.quote {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == JSONByte.backslash {
                try appendEscape()
            } else if byte >= 0x80 {
                let end = try endOfUTF8Sequence(at: index)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                index = end
            } else {
                throw controlCharacterFailure()
            }
        }
        throw failure("The input ends inside a string; a closing '\"' is missing.", at: index)
    }

    private func controlCharacterFailure() -> CloudantError {
        failure("A string holds a raw control character; escape it (\\n, \\t, \\u001F, …).", at: index)
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    private mutating func appendEscape() throws(CloudantError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else {
            throw failure("The input ends inside a string escape; it may be truncated.", at: index)
        }
        let decoded: UInt8
        switch bytes[index] {
        case JSONByte.quote: decoded = JSONByte.quote
        case JSONByte.backslash: decoded = JSONByte.backslash
        case JSONByte.slash: decoded = JSONByte.slash
        case UInt8(ascii: "b"): decoded = JSONByte.backspace
        case UInt8(ascii: "f"): decoded = JSONByte.formFeed
        case UInt8(ascii: "n"): decoded = JSONByte.lineFeed
        case UInt8(ascii: "r"): decoded = JSONByte.carriageReturn
        case UInt8(ascii: "t"): decoded = JSONByte.tab
        case UInt8(ascii: "u"):
            index += 1
            try appendUnicodeEscape(escapeStart: escapeStart)
            return
        default:
            throw failure(
                "Invalid escape in a string; JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX.", at: escapeStart)
        }
        scratch.append(decoded)
        index += 1
    }

    /// Decodes `XXXX` (and a following `\uXXXX` low surrogate when needed) after `\u`.
    private mutating func appendUnicodeEscape(escapeStart: Int) throws(CloudantError) {
        let unit = try readHexQuad()
        let scalar: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard index + 1 < bytes.count, bytes[index] == JSONByte.backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure(
                    "A \\u escape holds a high surrogate without the low surrogate that must follow it.",
                    at: escapeStart)
            }
            index += 2
            let low = try readHexQuad()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw failure(
                    "A \\u escape holds a high surrogate followed by something other than a low surrogate.",
                    at: escapeStart)
            }
            scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        case 0xDC00...0xDFFF:
            throw failure("A \\u escape holds a low surrogate without a high surrogate before it.", at: escapeStart)
        default:
            scalar = unit
        }
        appendUTF8(scalar)
    }

    private mutating func readHexQuad() throws(CloudantError) -> UInt32 {
        guard bytes.count - index >= 4 else {
            throw failure("A \\u escape needs four hexadecimal digits.", at: index)
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case JSONByte.zero ... JSONByte.nine: digit = byte - JSONByte.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("A \\u escape needs four hexadecimal digits.", at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Checks the multi-byte UTF-8 sequence starting at `start` (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) and returns the index just past it.
    private func endOfUTF8Sequence(at start: Int) throws(CloudantError) -> Int {
        func isContinuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            start + offset < bytes.count && range.contains(bytes[start + offset])
        }
        let valid: Bool
        let length: Int
        switch bytes[start] {
        case 0xC2...0xDF:
            length = 2
            valid = isContinuation(1)
        case 0xE0:
            length = 3
            valid = isContinuation(1, 0xA0...0xBF) && isContinuation(2)
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
            valid = isContinuation(1) && isContinuation(2)
        case 0xED:
            length = 3
            valid = isContinuation(1, 0x80...0x9F) && isContinuation(2)
        case 0xF0:
            length = 4
            valid = isContinuation(1, 0x90...0xBF) && isContinuation(2) && isContinuation(3)
        case 0xF1...0xF3:
            length = 4
            valid = isContinuation(1) && isContinuation(2) && isContinuation(3)
        case 0xF4:
            length = 4
            valid = isContinuation(1, 0x80...0x8F) && isContinuation(2) && isContinuation(3)
        default:
            length = 1
            valid = false
        }
        guard valid else {
            throw failure("The input is not valid UTF-8; JSON text must be encoded as UTF-8.", at: start)
        }
        return start + length
    }

    // MARK: Numbers

    /// Parses a number starting at its `-` or first digit.
    private mutating func parseNumber() throws(CloudantError) -> JSONNumber {
        let start = index
        let negative = bytes[index] == JSONByte.minus
        if negative { index += 1 }
        guard index < bytes.count, JSONByte.isDigit(bytes[index]) else {
            throw failure("A '-' must be followed by digits.", at: index)
        }

        // The decimal digits as an integer (while they fit) and the power of ten that scales them.
        var significand: UInt64 = 0
        var exponent = 0
        var droppedDigits = false
        var isInteger = true

        if bytes[index] == JSONByte.zero {
            index += 1
            if index < bytes.count, JSONByte.isDigit(bytes[index]) {
                throw failure("Numbers must not have leading zeros; write 7, not 07.", at: start)
            }
        } else {
            while index < bytes.count, JSONByte.isDigit(bytes[index]) {
                if significand <= Self.significandLimit {
                    significand = significand * 10 + UInt64(bytes[index] - JSONByte.zero)
                } else {
                    droppedDigits = true
                    exponent += 1
                }
                index += 1
            }
        }

        if index < bytes.count, bytes[index] == JSONByte.period {
            isInteger = false
            index += 1
            guard index < bytes.count, JSONByte.isDigit(bytes[index]) else {
                throw failure("A decimal point must be followed by at least one digit.", at: index)
            }
            while index < bytes.count, JSONByte.isDigit(bytes[index]) {
                if significand <= Self.significandLimit {
                    significand = significand * 10 + UInt64(bytes[index] - JSONByte.zero)
                    exponent -= 1
                } else {
                    droppedDigits = true
                }
                index += 1
            }
        }

        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == JSONByte.minus || bytes[index] == JSONByte.plus {
                exponentNegative = bytes[index] == JSONByte.minus
                index += 1
            }
            guard index < bytes.count, JSONByte.isDigit(bytes[index]) else {
                throw failure("An exponent must have at least one digit.", at: index)
            }
            var written = 0
            while index < bytes.count, JSONByte.isDigit(bytes[index]) {
                // Beyond a million the result is 0 or out of range anyway; stop growing to avoid overflow.
                if written < 1_000_000 { written = written * 10 + Int(bytes[index] - JSONByte.zero) }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }

        if isInteger, droppedDigits || significand > UInt64(Int64.max) + (negative ? 1 : 0) {
            // Beyond Int64: kept digit for digit, as CouchDB keeps it.
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return .bigInteger(text)
        }
        if isInteger, !droppedDigits {
            if negative {
                if significand == 0 { return .double(-0.0) }
                if significand <= UInt64(Int64.max) + 1 { return .integer(Int64(bitPattern: 0 &- significand)) }
            } else if significand <= UInt64(Int64.max) {
                return .integer(Int64(significand))
            }
        }

        // Clinger's fast path: both operands are exact doubles, so one IEEE operation rounds correctly.
        if !droppedDigits, let value = DecimalText.exactDouble(significand: significand, exponent: exponent, negative: negative) {
            return .double(value)
        }
        // Swift's `Double(_: String)` is correctly rounded and ignores the C locale; the grammar was checked
        // above, so it only sees valid JSON numbers.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure(
                "A number is beyond the range of a 64-bit floating-point value; send it as a string.", at: start)
        }
        return .double(value)
    }

    /// The largest significand that can take another decimal digit without overflowing `UInt64`.
    private static let significandLimit: UInt64 = (UInt64.max - 9) / 10

    // MARK: Errors

    private func failure(_ message: String, at position: Int) -> CloudantError {
        CloudantError(.invalidInput, "Invalid JSON: " + message, context: .init(position: position))
    }
}
