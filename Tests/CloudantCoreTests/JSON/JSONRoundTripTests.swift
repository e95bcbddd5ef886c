import CloudantCore
import PropertyBased
import Testing

/// Random JSON values for property tests: every kind of value, nesting up to four levels, strings over all
/// of Unicode (including control characters and astral-plane scalars), doubles over all finite bit patterns.
enum RandomJSON {
    static let generator = Generator { rng in value(depth: 0, using: &rng) }

    static func value(depth: Int, using rng: inout some RandomNumberGenerator) -> JSONValue {
        let kinds = depth >= 4 ? 5 : 7
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(.integer(integer(using: &rng)))
        case 3: return .number(.double(double(using: &rng)))
        case 4: return .string(string(using: &rng))
        case 5:
            return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in value(depth: depth + 1, using: &rng) })
        default:
            let members = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                (string(using: &rng), value(depth: depth + 1, using: &rng))
            }
            return .object(JSONObject(members))
        }
    }

    static func integer(using rng: inout some RandomNumberGenerator) -> Int64 {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: Int64.random(in: -100...100, using: &rng)
        case 1: [Int64.min, .max, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1][Int.random(in: 0..<5, using: &rng)]
        default: Int64.random(in: .min ... .max, using: &rng)
        }
    }

    static func double(using rng: inout some RandomNumberGenerator) -> Double {
        while true {
            let candidate: Double =
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: Double(bitPattern: UInt64.random(in: .min ... .max, using: &rng))
                case 1: Double.random(in: -1000...1000, using: &rng)
                default: Double(Int.random(in: -1000...1000, using: &rng)) / 8
                }
            if candidate.isFinite { return candidate }
        }
    }

    static func string(using rng: inout some RandomNumberGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            let range: ClosedRange<UInt32> =
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: 0...0x7F
                case 1: 0x80...0x7FF
                case 2: 0x800...0xFFFF
                default: 0x10000...0x10FFFF
                }
            // Surrogate code points are not scalars; the initialiser returns nil for them and we skip them.
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &rng)) { scalars.append(scalar) }
        }
        return String(scalars)
    }
}

@Suite("JSON round trips")
struct JSONRoundTripTests {
    static let samples = [
        #"{"_id":"task-1","_rev":"3-0123456789abcdef0123456789abcdef","title":"Walk","minutes":30,"done":false}"#,
        #"{"values":[1,-1,0,9223372036854775807,-9223372036854775808,9007199254740993,0.1,1e-07,5e+20,-0.0,1.0]}"#,
        #"{"text":"line\nbreak \"quoted\" \\ tab\t \u0001 é 😀 中文 a/b","empty":"","nested":{"a":{"b":{"c":[[],[{}]]}}}}"#,
        #"[null,true,false,"",{},[]]"#,
        #""just a string""#,
        "42",
    ]

    @Test(arguments: samples)
    func parseWriteParseGivesTheSameValueAndBytes(text: String) throws {
        let value = try parseJSON(text)
        let written = value.jsonBytes()
        #expect(try JSONValue(parsing: written) == value)
        #expect(try JSONValue(parsing: written).jsonBytes() == written)
        // These samples are compact and use only the escapes the writer uses, so the text is reproduced exactly.
        #expect(written == Array(text.utf8))
    }

    @Test func randomValuesRoundTripThroughWriteAndParse() async {
        await propertyCheck(count: 500, input: RandomJSON.generator) { value in
            let written = value.jsonBytes()
            let parsed = try JSONValue(parsing: written)
            #expect(parsed == value)
            // Byte equality is stricter than `==`: member order, number spelling and exact string bytes.
            #expect(parsed.jsonBytes() == written)
            let sorted = value.jsonBytes(sortedKeys: true)
            #expect(try JSONValue(parsing: sorted) == value)
            #expect(try JSONValue(parsing: value.canonicalJSONBytes()) == value)
        }
    }

    @Test func canonicalFormIsStableUnderReparsing() async {
        await propertyCheck(count: 200, input: RandomJSON.generator) { value in
            let canonical = value.canonicalJSONBytes()
            let reparsed = try JSONValue(parsing: canonical)
            #expect(reparsed.canonicalJSONBytes() == canonical)
        }
    }
}
