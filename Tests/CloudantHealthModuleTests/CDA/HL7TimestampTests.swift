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

    @Test(arguments: [
        "", "24", "2024131", "20241301", "20240230", "2024060125", "20240601.5", "20240601+07", "2024x",
        "00000101", "2024060124", "202406011260", "20240601125960", "19000229", "2024+-1-1", "20240601+1500",
        "20240601130000.", "20240601130000.5x", "20240601-07a0", "２０２４",
    ])
    func malformedTimestampsAreTypedErrors(_ text: String) {
        let error = #expect(throws: CloudantError.self) { try HL7Timestamp(parsing: text) }
        #expect(error?.code == .invalidTimestamp)
        #expect(error?.message.contains("is not an HL7 TS timestamp") == true)
    }

    @Test func instantsFollowTheGregorianCalendarAcrossLeapDaysCenturiesAndOffsets() throws {
        #expect(try HL7Timestamp(parsing: "19700101").date == Date(timeIntervalSince1970: 0))
        #expect(try HL7Timestamp(parsing: "20000229").date == Date(timeIntervalSince1970: 951_782_400))
        #expect(try HL7Timestamp(parsing: "19691231235959").date == Date(timeIntervalSince1970: -1))
        let late = try HL7Timestamp(parsing: "20241231233000-0130")
        #expect(late.date == Date(timeIntervalSince1970: 1_735_693_200))  // 2025-01-01T01:00:00Z
        let fine = try HL7Timestamp(parsing: " 20240601130000.0625+0000\t")
        #expect(fine.text == "20240601130000.0625+0000" && fine.utcOffset == 0 && fine.precision == .fraction)
        #expect(fine.date == Date(timeIntervalSince1970: 1_717_246_800.0625))
    }
}
