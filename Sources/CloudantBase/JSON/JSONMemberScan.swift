/// Finds the values of a few named members of a JSON object without building the rest of it.
///
/// Building an index over a million stored documents needs one or two members of each; parsing every body
/// into a ``JSONValue`` allocated a tree per document only to drop it (two thirds of an index build,
/// profiled). The scan walks the object's top level, steps over the values it was not asked for (strings,
/// numbers and nested containers alike, without decoding them) and reports where the wanted values are;
/// the caller parses just those slices.
///
/// It reads like the parser: member names compare as their decoded UTF-8 bytes (a name written with
/// escapes still matches), and a name written twice gives its last value. It checks the structure it
/// walks, not every byte: text the scan calls well formed may still be refused by the parser, so use it on
/// text the store wrote, and parse in full when it returns nil.
public enum JSONMemberScan {
    /// The byte range of each wanted member's value in `bytes`, in the order of `names`; nil for a member
    /// that is not there.
    ///
    /// ```swift
    /// let body = Array(#"{"type":"HeartRate","value":72}"#.utf8)
    /// let ranges = body.withUnsafeBufferPointer { JSONMemberScan.valueRanges(of: [Array("value".utf8)], in: $0) }
    /// // ranges == [27..<29]
    /// ```
    ///
    /// - Parameters:
    ///   - names: Member names as UTF-8 bytes.
    ///   - bytes: The JSON text of an object.
    /// - Returns: The ranges, or nil when `bytes` is not an object or is malformed where the scan looked.
    public static func valueRanges(of names: [[UInt8]], in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>?]? {
        var scanner = Scanner(bytes: bytes)
        var ranges = [Range<Int>?](repeating: nil, count: names.count)
        let scanned = scanner.scanObject { name, value in
            for (index, wanted) in names.enumerated() where Scanner.matches(name, in: bytes, wanted) { ranges[index] = value }
        }
        return scanned ? ranges : nil
    }

    /// The byte range of one member's value in `bytes`, found as ``valueRanges(of:in:)`` finds it; nil
    /// when the member is not there or `bytes` is not an object or is malformed where the scan looked.
    /// For a lookup per document, it allocates nothing.
    ///
    /// ```swift
    /// var name = "value"
    /// let range = name.withUTF8 { name in body.withUnsafeBufferPointer { JSONMemberScan.valueRange(of: name, in: $0) } }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The member's name as UTF-8 bytes.
    ///   - bytes: The JSON text of an object.
    public static func valueRange(of name: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        member(name, in: bytes) ?? nil
    }

    /// ``valueRange(of:in:)`` telling an absent member from text it cannot read: nil when `bytes` is not an
    /// object or is malformed where the scan looked; an inner nil when the object has no member `name`.
    ///
    /// - Parameters:
    ///   - name: The member's name as UTF-8 bytes.
    ///   - bytes: The JSON text of an object.
    public static func member(_ name: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>?? {
        var scanner = Scanner(bytes: bytes)
        var found: Range<Int>?
        let scanned = scanner.scanObject { member, value in
            if Scanner.matches(member, in: bytes, name) { found = value }
        }
        return scanned ? .some(found) : nil
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        private static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
        private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
        private static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":")

        /// Walks the object's top level, calling `visit` with each member's name token and value range;
        /// whether the object was well formed where the scan looked.
        mutating func scanObject(_ visit: (_ name: (range: Range<Int>, escaped: Bool), _ value: Range<Int>) -> Void) -> Bool {
            skipWhitespace()
            guard take(Self.openBrace) else { return false }
            skipWhitespace()
            if !take(Self.closeBrace) {
                while true {
                    guard peek == Self.quote, let name = scanString() else { return false }
                    skipWhitespace()
                    guard take(Self.colon) else { return false }
                    skipWhitespace()
                    let start = position
                    guard skipValue() else { return false }
                    visit(name, start..<position)
                    skipWhitespace()
                    if take(Self.comma) {
                        skipWhitespace()
                        continue
                    }
                    guard take(Self.closeBrace) else { return false }
                    break
                }
            }
            skipWhitespace()
            return position == bytes.count
        }

        private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            position += 1
            return true
        }

        private mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
        }

        /// A string token: the range between its quotes and whether it holds escapes. Leaves the position
        /// after the closing quote.
        private mutating func scanString() -> (range: Range<Int>, escaped: Bool)? {
            position += 1
            let start = position
            var escaped = false
            while position < bytes.count {
                switch bytes[position] {
                case Self.quote:
                    position += 1
                    return (start..<position - 1, escaped)
                case Self.backslash:
                    escaped = true
                    position += 2
                case 0x00..<0x20:
                    return nil
                default:
                    position += 1
                }
            }
            return nil
        }

        /// Steps over one value: a string, a container (to its matching close, strings inside skipped as
        /// strings), or a number or literal (to the next delimiter).
        private mutating func skipValue() -> Bool {
            guard let first = peek else { return false }
            switch first {
            case Self.quote:
                return scanString() != nil
            case Self.openBrace, Self.openBracket:
                // Depth only: which bracket closes which is the parser's check (see the type's discussion).
                var depth = 0
                while let byte = peek {
                    switch byte {
                    case Self.quote:
                        guard scanString() != nil else { return false }
                        continue
                    case Self.openBrace, Self.openBracket: depth += 1
                    case Self.closeBrace, Self.closeBracket:
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return true
                        }
                    default: break
                    }
                    position += 1
                }
                return false
            default:
                let start = position
                while let byte = peek {
                    switch byte {
                    case Self.comma, Self.closeBrace, Self.closeBracket, 0x20, 0x0A, 0x0D, 0x09: return position > start
                    case Self.quote, Self.openBrace, Self.openBracket, Self.colon: return false
                    default: position += 1
                    }
                }
                return position > start
            }
        }

        /// Whether a name scanned in `bytes` is `wanted`: byte for byte, or after decoding its escapes.
        static func matches(
            _ name: (range: Range<Int>, escaped: Bool), in bytes: UnsafeBufferPointer<UInt8>, _ wanted: some Collection<UInt8>
        ) -> Bool {
            guard name.escaped else { return UnsafeBufferPointer(rebasing: bytes[name.range]).elementsEqual(wanted) }
            let token = UnsafeBufferPointer(rebasing: bytes[(name.range.lowerBound - 1)...name.range.upperBound])
            guard case .string(let decoded)? = try? JSONValue(parsing: token) else { return false }
            return decoded.utf8.elementsEqual(wanted)
        }
    }
}
