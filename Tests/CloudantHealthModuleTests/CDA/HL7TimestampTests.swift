import CloudantCore
import CloudantHealthModule
import Foundation
import Testing

@Suite("HL7 TS timestamps")
struct HL7TimestampTests {
    @Test func partialPrecisionIsKeptAndReadAsTheStartOfThePeriod() throws {
        let year = try HL7Timestamp(parsing: "2024")
        #expect(year.precision == .year)
        #expect(year.date == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(try HL7Timestamp(parsing: "202406").precision == .month)
        #expect(try HL7Timestamp(parsing: "20240601").precision == .day)
        #expect(try HL7Timestamp(parsing: "2024060113").precision == .hour)
        #expect(try HL7Timestamp(parsing: "202406011305").precision == .minute)
        #expect(try HL7Timestamp(parsing: "20240601130509").precision == .second)
    }

    @Test func fractionalSecondsAndOddOffsetsAreExact() throws {
        let time = try HL7Timestamp(parsing: "20240601130000.5+0545")
        #expect(time.precision == .fraction)
        #expect(time.utcOffset == 5 * 3600 + 45 * 60)
        #expect(time.date == Date(timeIntervalSince1970: 1_717_226_100.5))
        #expect(try HL7Timestamp(parsing: "20240601-0930").utcOffset == -(9 * 3600 + 1800))
    }

    @Test(arguments: ["", "24", "2024131", "20241301", "20240230", "2024060125", "20240601.5", "20240601+07", "2024x"])
    func malformedTimestampsAreTypedErrors(_ text: String) {
        let error = #expect(throws: CloudantError.self) { try HL7Timestamp(parsing: text) }
        #expect(error?.code == .invalidTimestamp)
    }
}
