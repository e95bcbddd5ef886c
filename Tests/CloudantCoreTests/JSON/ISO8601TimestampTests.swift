import CloudantCore
import Foundation
import Testing

/// The package's one ISO 8601 writer and reader: JavaScript's `toISOString()` form for documents, CouchDB's
/// whole-second form for replication times.
@Suite("ISO 8601 timestamps")
struct ISO8601TimestampTests {
    @Test func documentsGetJavaScriptsMillisecondFormRounded() {
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 1_764_524_544.1236)) == "2025-11-30T17:42:24.124Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 253_402_300_800)) == "+010000-01-01T00:00:00.000Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: .nan)) == nil)
    }

    @Test func wholeSecondsAreTheSecondTheDateFallsIn() {
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 1_764_524_544.999), fractionalSeconds: false) == "2025-11-30T17:42:24Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: -0.5), fractionalSeconds: false) == "1969-12-31T23:59:59Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 0), fractionalSeconds: false) == "1970-01-01T00:00:00Z")
    }

    @Test func readingTakesOffsetsAndFractionsAndRoundTrips() throws {
        let read = try #require(ISO8601Timestamp.date(from: "2025-11-30T18:42:24.5+01:00"))
        #expect(read.timeIntervalSince1970 == 1_764_524_544.5)
        #expect(ISO8601Timestamp.date(from: "2025-02-30T00:00:00Z") == nil)
        for text in ["2025-11-30T17:42:24.124Z", "-000001-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z"] {
            #expect(ISO8601Timestamp.date(from: text).flatMap { ISO8601Timestamp.string(from: $0) } == text)
        }
    }
}
