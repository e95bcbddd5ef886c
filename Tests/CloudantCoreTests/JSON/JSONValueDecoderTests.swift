@testable import CloudantBase
import CloudantCore
import Foundation
import Testing

/// A type with every kind of member the decoder special-cases, nested, optional and in collections.
private struct Everything: Codable, Equatable {
    enum Mood: String, Codable { case calm, busy }
    struct Inner: Codable, Equatable {
        var at: Date
        var tags: [String]
        var score: Double?
    }

    var int: Int
    var small: Int8
    var unsigned: UInt64
    var double: Double
    var float: Float
    var decimal: Decimal
    var flag: Bool
    var text: String
    var date: Date
    var data: Data
    var url: URL?
    var mood: Mood
    var inner: Inner
    var list: [Inner]
    var map: [String: Int]
    var byNumber: [Int: String]
    var optional: String?
    var free: JSONValue
}

/// Optional members of every type the keyed container reads itself, decoded with `decodeIfPresent`.
private struct AllOptional: Codable, Equatable {
    var bool: Bool?
    var string: String?
    var double: Double?
    var float: Float?
    var int: Int?
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint16: UInt16?
    var uint32: UInt32?
    var uint64: UInt64?
    var date: Date?
    var uuid: UUID?
    var list: [Int]?
    var free: JSONValue?
}

/// A type that reads its value in the order `JSONValue`'s own decoding tries: the first that succeeds wins,
/// so a decoder that succeeded or failed where `JSONDecoder` does not would pick another.
private struct FirstThatDecodes: Decodable, Equatable {
    var description: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { description = "null" }
        else if let value = try? container.decode(Bool.self) { description = "bool \(value)" }
        else if let value = try? container.decode(Int8.self) { description = "int8 \(value)" }
        else if let value = try? container.decode(UInt64.self) { description = "uint64 \(value)" }
        else if let value = try? container.decode(Int64.self) { description = "int64 \(value)" }
        else if let value = try? container.decode(Double.self) { description = "double \(value)" }
        else if let value = try? container.decode(Date.self) { description = "date \(value.timeIntervalSince1970)" }
        else if let value = try? container.decode(Data.self) { description = "data \(value.base64EncodedString())" }
        else if let value = try? container.decode(String.self) { description = "string \(value)" }
        else if let value = try? container.decode([FirstThatDecodes].self) { description = "array \(value)" }
        else { description = "object \(try container.decode([String: FirstThatDecodes].self).sorted { $0.key < $1.key })" }
    }
}

@Suite("Decoding straight from parsed JSON values, as JSONDecoder decodes their text")
struct JSONValueDecoderTests {
    /// Numbers at every edge: signs, fractions, 2^53 and beyond, big integers, tiny and huge doubles.
    static let numbers = [
        "0", "-0.0", "1", "1.0", "1.5", "-1", "127", "128", "-129", "255", "256", "34.0", "1e2", "1E-2",
        "9007199254740992", "9007199254740993", "9007199254740994.0", "1.2345678901234567e19", "1e19",
        "12345678901234567890", "-12345678901234567890", "123456789012345678901234567890", "1e300", "1e-300",
        "1e-400", "3.4028236e38", "0.1", "2.5e-5",
    ]
    static let strings = [
        "\"2024-05-01T09:30:00.250Z\"", "\"2024-05-01T09:30:00Z\"", "\"2024-05-01T11:30:00+02:00\"", "\"yesterday\"",
        "\"aGVsbG8=\"", "\"aGVsbG8\"", "\"not base64!\"", "\"\"", "\"https://example.org/a?b=c\"", "\"a b\"",
        "\"calm\"", "\"sleepy\"", "\"12\"",
        // UUIDs: canonical in either case (read without Foundation), and texts only Foundation may read.
        "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\"",
        "\"e621E1F8-c36C-495a-93Fc-0C247a3e6E5f\"", "\"E621E1F8C36C495A93FC0C247A3E6E5F\"",
        "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5G\"", "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5\"",
        "\"+621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "\" 621E1F8-C36C-495A-93FC-0C247A3E6E5F\"",
        "\"E621E1F8_C36C-495A-93FC-0C247A3E6E5F\"", "\"{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}\"",
    ]
    static let others = ["null", "true", "false", "[]", "[1,2.5,null]", "{}", "{\"a\":1,\"b\":[true]}"]
    static var texts: [String] { numbers + strings + others }

    /// The same answer both ways: equal values, or both refused.
    func expectSame<T: Decodable & Equatable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let value = try JSONValue(parsing: Array(text.utf8))
        let direct = Result { try JSONValueDecoder.decode(T.self, from: value) }
        let foundation = Result { try CloudantJSONCoding.makeDecoder().decode(T.self, from: value.jsonData()) }
        switch (direct, foundation) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(T.self) from \(text)", sourceLocation: sourceLocation)
        case (.failure, .failure):
            break
        case (.success(let a), .failure):
            Issue.record("\(T.self) from \(text): decoded \(a) where JSONDecoder refuses", sourceLocation: sourceLocation)
        case (.failure(let error), .success(let b)):
            Issue.record("\(T.self) from \(text): refused (\(error)) where JSONDecoder gives \(b)", sourceLocation: sourceLocation)
        }
    }

    @Test("Every primitive type decodes every value exactly as JSONDecoder does, or is refused as it is")
    func primitivesMatchJSONDecoder() throws {
        for text in Self.texts {
            try expectSame(Int.self, text)
            try expectSame(Int8.self, text)
            try expectSame(UInt8.self, text)
            try expectSame(Int64.self, text)
            try expectSame(UInt64.self, text)
            try expectSame(Double.self, text)
            try expectSame(Float.self, text)
            try expectSame(Decimal.self, text)
            try expectSame(Bool.self, text)
            try expectSame(String.self, text)
            try expectSame(Date.self, text)
            try expectSame(Data.self, text)
            try expectSame(URL.self, text)
            try expectSame(UUID.self, text)
            try expectSame([UUID].self, "[\(text)]")
            try expectSame(Int?.self, text)
            try expectSame([Double].self, text)
            try expectSame([String: Int].self, text)
            try expectSame(JSONValue.self, text)
            try expectSame(FirstThatDecodes.self, text)
        }
    }

    @Test("Types that try one reading after another pick the same one as with JSONDecoder")
    func tryingReadingsInTurnPicksTheSameOne() throws {
        for text in Self.texts {
            try expectSame(FirstThatDecodes.self, text)
            try expectSame([FirstThatDecodes].self, "[\(text),\(text)]")
            try expectSame([String: FirstThatDecodes].self, "{\"k\":\(text)}")
        }
    }

    @Test("A nested entity round-trips, and a broken member is refused as JSONDecoder refuses it")
    func nestedEntitiesMatchJSONDecoder() throws {
        let inner = Everything.Inner(at: Date(timeIntervalSince1970: 1_714_555_800.25), tags: ["a", "b"], score: nil)
        let entity = Everything(
            int: -3, small: 7, unsigned: 18_446_744_073_709_551_615, double: 0.1, float: 1.5, decimal: Decimal(string: "12.345")!,
            flag: true, text: "héllo \u{1F600}", date: Date(timeIntervalSince1970: 0), data: Data([0, 1, 255]),
            url: URL(string: "https://example.org/x"), mood: .busy, inner: inner, list: [inner, inner], map: ["x": 1, "y": 2],
            byNumber: [1: "one", 20: "twenty"], optional: nil, free: ["k": [1, "two", nil]])
        let value = try JSONValue(encoding: entity)
        #expect(try JSONValueDecoder.decode(Everything.self, from: value) == entity)
        #expect(try value.decode(Everything.self) == entity)
        let text = value.jsonString()
        try expectSame(Everything.self, text)
        // Each member broken in turn: wrong kinds, null where required, missing.
        guard case .object(let object) = value else { return }
        for key in object.keys {
            for replacement: JSONValue? in [nil, .null, "text", 1.5, true, [], [:]] {
                var broken = object
                broken[key] = replacement
                try expectSame(Everything.self, JSONValue.object(broken).jsonString())
            }
        }
    }

    @Test("An optional member that is missing or null is nil, and any other value decodes or is refused as with JSONDecoder")
    func optionalMembersMatchJSONDecoder() throws {
        let keys = ["bool", "string", "double", "float", "int", "int8", "int16", "int32", "int64", "uint", "uint8",
                    "uint16", "uint32", "uint64", "date", "uuid", "list", "free"]
        try expectSame(AllOptional.self, "{}")
        for key in keys {
            for text in Self.texts { try expectSame(AllOptional.self, "{\"\(key)\":\(text)}") }
        }
        let nulls = try JSONValueDecoder.decode(AllOptional.self, from: .object(JSONObject(keys.map { ($0, .null) })))
        #expect(nulls == AllOptional())
    }

    @Test("A failed decode reports JSONDecoder's error: the same kind and member path")
    func failuresKeepJSONDecodersErrors() throws {
        let value: JSONValue = ["int": "three"]
        #expect {
            _ = try value.decode(Everything.self)
        } throws: { error in
            (error as? CloudantError)?.context.field == "int"
        }
    }
}
