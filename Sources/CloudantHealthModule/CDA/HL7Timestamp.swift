public import CloudantCore
public import Foundation

/// An HL7 v3 `TS` value (`YYYY[MM[DD[HH[MM[SS[.S…]]]]]][±ZZzz]`) with its precision and offset kept:
/// `20240601` is a day, not midnight UTC; `20240601130000.25-0700` keeps its quarter second and `-0700`.
///
/// ```swift
/// let time = try HL7Timestamp(parsing: "20240601130000-0700")
/// time.precision        // .second
/// time.utcOffset        // -25200
/// time.date             // 2024-06-01T20:00:00Z
/// ```
public struct HL7Timestamp: Codable, Hashable, Sendable, CustomStringConvertible {
    /// How much of the timestamp was written.
    public enum Precision: String, Codable, Hashable, Sendable, Comparable {
        /// `YYYY`.
        case year
        /// `YYYYMM`.
        case month
        /// `YYYYMMDD`.
        case day
        /// `YYYYMMDDHH`.
        case hour
        /// `YYYYMMDDHHMM`.
        case minute
        /// `YYYYMMDDHHMMSS`.
        case second
        /// Seconds with a fraction.
        case fraction

        private var rank: Int { [.year, .month, .day, .hour, .minute, .second, .fraction].firstIndex(of: self) ?? 0 }
        /// Coarser precisions sort first.
        public static func < (lhs: Precision, rhs: Precision) -> Bool { lhs.rank < rhs.rank }
    }

    /// The text as written.
    public var text: String
    /// How much was written.
    public var precision: Precision
    /// The offset from UTC in seconds, when written (`-0700` → `-25200`); offsets need not be whole hours.
    public var utcOffset: Int?
    /// The start of the instant or period, read in the written offset (UTC when none is written), on the
    /// proleptic Gregorian calendar.
    public var date: Date

    /// The text as written.
    public var description: String { text }

    /// Parses an HL7 `TS` value.
    /// - Throws: `CloudantError` `.invalidTimestamp` naming the text when a part is missing, out of range
    ///   or followed by junk.
    public init(parsing text: String) throws(CloudantError) {
        var trimmed = Self.trimmingSpaces(text)
        switch trimmed.withUTF8(HL7TimestampParser.parse) {
        case .success(let parsed):
            self.text = trimmed
            self.precision = parsed.precision
            self.utcOffset = parsed.utcOffset
            self.date = Date(timeIntervalSince1970: Double(parsed.secondsSince1970)).addingTimeInterval(parsed.fraction)
        case .failure(let failure):
            throw CloudantError(
                .invalidTimestamp, "'\(trimmed)' is not an HL7 TS timestamp: \(failure.reason).",
                context: .init(field: "effectiveTime"))
        }
    }

    /// `text` without surrounding spaces and tabs; almost every timestamp has none, so look before trimming.
    private static func trimmingSpaces(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        func plain(_ byte: UInt8) -> Bool { byte < 0x80 && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") }
        return plain(first) && plain(last) ? text : text.trimmingCharacters(in: .whitespaces)
    }
}
