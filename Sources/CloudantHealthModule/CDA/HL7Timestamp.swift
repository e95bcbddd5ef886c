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
    /// The start of the instant or period, read in the written offset (UTC when none is written).
    public var date: Date

    /// The text as written.
    public var description: String { text }

    /// Parses an HL7 `TS` value.
    /// - Throws: ``CloudantError`` `.invalidTimestamp` naming the text when a part is missing, out of range
    ///   or followed by junk.
    public init(parsing text: String) throws(CloudantError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func failure(_ why: String) -> CloudantError {
            CloudantError(.invalidTimestamp, "'\(trimmed)' is not an HL7 TS timestamp: \(why).", context: .init(field: "effectiveTime"))
        }
        var body = Substring(trimmed)
        var offset: Int?
        if let signIndex = body.firstIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = body[body.index(after: signIndex)...]
            guard zone.count == 4, zone.allSatisfy(\.isASCII), let hours = Int(zone.prefix(2)), let minutes = Int(zone.suffix(2)),
                hours <= 14, minutes < 60
            else { throw failure("the offset must be ±HHMM") }
            offset = (body[signIndex] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            body = body[..<signIndex]
        }
        var fraction = Decimal(0)
        var hasFraction = false
        if let dot = body.firstIndex(of: ".") {
            let digits = body[body.index(after: dot)...]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Decimal(string: "0." + digits, locale: Locale(identifier: "en_US_POSIX"))
            else { throw failure("the fraction of a second must be digits") }
            fraction = value
            hasFraction = true
            body = body[..<dot]
        }
        guard body.allSatisfy({ $0.isASCII && $0.isNumber }), [4, 6, 8, 10, 12, 14].contains(body.count) else {
            throw failure("expected 4, 6, 8, 10, 12 or 14 digits before any fraction or offset")
        }
        guard !hasFraction || body.count == 14 else { throw failure("a fraction needs whole seconds before it") }
        let digits = Array(body)
        func field(_ start: Int, _ length: Int, default value: Int) -> Int {
            guard digits.count >= start + length else { return value }
            return Int(String(digits[start..<start + length])) ?? value
        }
        var components = DateComponents()
        components.year = field(0, 4, default: 0)
        components.month = field(4, 2, default: 1)
        components.day = field(6, 2, default: 1)
        components.hour = field(8, 2, default: 0)
        components.minute = field(10, 2, default: 0)
        components.second = field(12, 2, default: 0)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset ?? 0) ?? TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard components.isValidDate(in: calendar), (components.second ?? 0) < 60, let date = calendar.date(from: components) else {
            throw failure("a month, day, hour, minute or second is out of range")
        }
        self.text = trimmed
        self.precision = hasFraction ? .fraction : [4: .year, 6: .month, 8: .day, 10: .hour, 12: .minute][digits.count] ?? .second
        self.utcOffset = offset
        self.date = date.addingTimeInterval(NSDecimalNumber(decimal: fraction).doubleValue)
    }
}
