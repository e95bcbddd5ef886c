import CloudantCore
import Testing

/// The writer finds what to escape eight bytes at a time; every position of every escaped byte, in strings
/// of every length around a word, must come out as the byte-by-byte rule writes it.
@Suite("JSON string escaping")
struct JSONStringEscapeTests {
    /// The escaped form of one byte, as JSONWriter writes it (RFC 8259 short escapes, else \u00XX).
    static func expected(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test(arguments: ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\t"])
    func anEscapedByteAtAnyPositionOfAnyLengthIsEscaped(special: String) throws {
        for length in 0...40 {
            for position in 0...length {
                var characters = Array(repeating: Character("a"), count: length)
                characters.insert(Character(special), at: position)
                let text = String(characters)
                let written = JSONValue.string(text).jsonString()
                #expect(written == Self.expected(text), "length \(length), position \(position)")
                #expect(try JSONValue(parsing: written) == .string(text))
            }
        }
    }

    @Test func bytesAboveASCIIAndNeighboursOfTheEscapedOnesAreWrittenAsThey() throws {
        // 0x20 (space), 0x21, 0x23, 0x5B, 0x5D sit next to the escaped bytes; é, € and 😀 are 2-, 3- and 4-byte
        // UTF-8 whose bytes are all ≥ 0x80 (one is 0xA2 = 0x22 | 0x80, another 0xDC = 0x5C | 0x80).
        let text = " !#[]é€😀\u{A2}\u{DC}ok" + String(repeating: "xyz é", count: 7)
        #expect(JSONValue.string(text).jsonString() == Self.expected(text))
        #expect(try JSONValue(parsing: JSONValue.string(text).jsonString()) == .string(text))
    }
}
