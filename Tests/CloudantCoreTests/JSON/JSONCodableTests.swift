import CloudantCore
import Foundation
import Testing

private struct Reading: Codable, Equatable, Sendable {
    struct Sample: Codable, Equatable, Sendable {
        var at: Date
        var value: Double
    }

    var id: String
    var count: Int
    var bigID: Int64
    var takenAt: Date
    var samples: [Sample]
    var photo: Data
    var note: String?
    var verified: Bool
    var extra: JSONValue
}

private struct Stamped: Codable, Equatable {
    var date: Date
}

private struct Measure: Codable {
    var value: Double
}

private struct Outer: Codable {
    struct Item: Codable { var n: Int }
    var items: [Item]
}

@Suite("JSON Codable bridge")
struct JSONCodableTests {
    /// 2023-11-14T22:13:20.123Z, exact to the millisecond.
    static let preciseDate = Date(timeIntervalSince1970: 1_700_000_000.123)

    private static let reading = Reading(
        id: "r-1", count: 3, bigID: .max, takenAt: preciseDate,
        samples: [
            .init(at: Date(timeIntervalSince1970: 1_700_000_000.001), value: 120.5),
            .init(at: Date(timeIntervalSince1970: -1.5), value: -0.25),
        ],
        photo: Data([0, 1, 2, 250, 251, 255]), note: nil, verified: true,
        extra: ["source": "cuff", "order": [3, 1, 2]])

    @Test func entitiesRoundTripThroughJSONValue() throws {
        let value = try JSONValue(encoding: Self.reading)
        #expect(try value.decode(Reading.self) == Self.reading)
    }

    @Test func subSecondDatesArePreservedAsISO8601Milliseconds() throws {
        let value = try JSONValue(encoding: Self.reading)
        #expect(value["takenAt"] == "2023-11-14T22:13:20.123Z")
        #expect(value["samples"]?.arrayValue?[1]["at"] == "1969-12-31T23:59:58.500Z")
        let decoded = try value.decode(Reading.self)
        #expect(decoded.takenAt == Self.preciseDate)
        #expect(decoded.takenAt.timeIntervalSince1970 == 1_700_000_000.123)
    }

    @Test func datesRoundToTheNearestMillisecond() throws {
        let value = try JSONValue(encoding: Stamped(date: Date(timeIntervalSince1970: 0.0126)))
        #expect(value["date"] == "1970-01-01T00:00:00.013Z")
    }

    @Test func datesOutsideFourDigitYearsUseSignedSixDigitYears() throws {
        let far = Date(timeIntervalSince1970: 253_402_300_800)  // 10000-01-01
        let ancient = Date(timeIntervalSince1970: -62_198_755_200)  // -000001-01-01 (2 BCE)
        #expect(try JSONValue(encoding: Stamped(date: far))["date"] == "+010000-01-01T00:00:00.000Z")
        #expect(try JSONValue(encoding: Stamped(date: ancient))["date"] == "-000001-01-01T00:00:00.000Z")
        for date in [far, ancient, Date.distantPast, Date.distantFuture] {
            #expect(try JSONValue(encoding: Stamped(date: date)).decode(Stamped.self).date == date)
        }
    }

    @Test(arguments: [
        ("2024-05-01T09:30:00Z", 1_714_555_800.0),
        ("2024-05-01T09:30:00.250Z", 1_714_555_800.25),
        ("2024-05-01T11:30:00.250+02:00", 1_714_555_800.25),
        ("2024-05-01T04:00:00-05:30", 1_714_555_800.0),
        ("2024-05-01t09:30:00.5z", 1_714_555_800.5),
        ("2024-05-01T09:30:00.123456Z", 1_714_555_800.123456),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1969-12-31T23:59:59.999Z", -0.001),
    ])
    func decoderAcceptsISO8601WithOrWithoutFractionsAndOffsets(text: String, seconds: Double) throws {
        let value: JSONValue = ["date": .string(text)]
        #expect(try value.decode(Stamped.self).date == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "2024-05-01", "2024-05-01T09:30Z", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z",
        "2024-05-01T09:30:00", "2024-05-01T09:30:00.Z", "2024-05-01 09:30:00Z", "1714555800", "2024-05-01T09:30:00Zjunk",
    ])
    func decoderRejectsMalformedDatesNamingTheField(text: String) {
        let value: JSONValue = ["date": .string(text)]
        let error = #expect(throws: CloudantError.self) { try value.decode(Stamped.self) }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.field == "date")
        #expect(error?.underlying is DecodingError)
    }

    @Test func dataIsWrittenAsBase64() throws {
        let value = try JSONValue(encoding: Self.reading)
        #expect(value["photo"] == "AAEC+vv/")
    }

    @Test func int64MembersStayExact() throws {
        let value = try JSONValue(encoding: Self.reading)
        #expect(value["bigID"] == .number(.integer(.max)))
    }

    @Test func encodedEntitiesHaveSortedKeys() throws {
        let value = try JSONValue(encoding: Self.reading)
        #expect(value.objectValue?.keys == value.objectValue?.keys.sorted())
    }

    @Test func decodingFailureNamesTheCodingPathAndKeepsTheDecodingError() throws {
        let value = try parseJSON(#"{"items":[{"n":1},{"n":"Alice"}]}"#)
        let error = try #require(throws: CloudantError.self) { try value.decode(Outer.self) }
        #expect(error.code == .invalidInput)
        #expect(error.context.field == "items[1].n")
        #expect(error.underlying is DecodingError)
        #expect(!error.message.contains("Alice"))
    }

    @Test func missingMemberIsNamedInTheField() throws {
        let value = try parseJSON(#"{"items":[{"m":1}]}"#)
        let error = try #require(throws: CloudantError.self) { try value.decode(Outer.self) }
        #expect(error.context.field == "items[0].n")
    }

    @Test func nonFiniteNumbersFailToEncodeAsInvalidValue() {
        let error = #expect(throws: CloudantError.self) { try JSONValue(encoding: Measure(value: .infinity)) }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.field == "value")
    }

    // MARK: JSONValue's own Codable conformance

    @Test func jsonValueDecodesFromFoundationsDecoder() throws {
        let text = #"{"n":null,"b":true,"i":9223372036854775807,"d":2.5,"s":"é","a":[1,"x",[]],"o":{"z":1,"a":2}}"#
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(decoded == (try parseJSON(text)))
        #expect(decoded["i"] == .number(.integer(.max)))
        #expect(decoded["b"] == true)
        // A generic decoder does not report member order, so members come out sorted.
        #expect(decoded["o"]?.objectValue?.keys == ["a", "z"])
    }

    @Test func jsonValueEncodesThroughFoundationsEncoder() throws {
        let value = try parseJSON(#"{"b":[1,2.5,"x",null,true],"a":{"c":-9223372036854775808}}"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(value)
        #expect(try JSONValue(parsing: data) == value)
    }

    @Test func jsonValueMembersOfEntitiesKeepTheirContent() throws {
        let value = try JSONValue(encoding: Self.reading)
        #expect(value["extra"] == ["source": "cuff", "order": [3, 1, 2]])
    }
}
