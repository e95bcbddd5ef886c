internal import CloudantBase
public import Foundation

/// A day of the Gregorian calendar with no time zone (`2024-03-05`), as HealthKit's activity summaries name
/// their day (`HKActivitySummary.dateComponents(for:)`): the day the user lived, wherever they were.
///
/// ```swift
/// let day = CalendarDay(parsing: "2024-03-05")
/// day?.interval(in: TimeZone(identifier: "Europe/Paris")!)   // 2024-03-04T23:00Z ..< 2024-03-05T23:00Z
/// ```
///
/// It encodes as its `YYYY-MM-DD` text, which sorts and collates in day order.
public struct CalendarDay: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The year (1…9999).
    public let year: Int
    /// The month (1…12).
    public let month: Int
    /// The day of the month (1…31, as the month allows).
    public let day: Int

    /// Creates a day; `nil` when the fields are no day of the Gregorian calendar (`2023-02-29`).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= GregorianDays.daysIn(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` (what `export.xml` writes in `dateComponents`); `nil` for anything else.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day as `YYYY-MM-DD`.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// Year, month and day in the Gregorian calendar, as HealthKit's activity summary queries take them.
    public var dateComponents: DateComponents {
        DateComponents(calendar: Calendar(identifier: .gregorian), year: year, month: month, day: day)
    }

    /// The day from midnight to midnight in `timeZone` (23 or 25 hours long on a daylight-saving change).
    public func interval(in timeZone: TimeZone) -> DateInterval {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return floatingInterval }
        return DateInterval(start: start, end: end)
    }

    /// The day from midnight to midnight UTC: where the store puts a day whose time zone is unknown, so days
    /// sort and range-query in calendar order.
    public var floatingInterval: DateInterval {
        let start = Date(timeIntervalSince1970: Double(daysSince1970) * 86_400)
        return DateInterval(start: start, duration: 86_400)
    }

    /// Days from 1970-01-01 to this day.
    var daysSince1970: Int { GregorianDays.daysSince1970(year: year, month: month, day: day) }

    /// Whether `lhs` is an earlier day than `rhs`.
    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Decodes a day from its `YYYY-MM-DD` text.
    /// - Throws: `DecodingError.dataCorrupted` when the text is not a day.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = CalendarDay(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected a day as YYYY-MM-DD.")
        }
        self = day
    }

    /// Encodes the day as its `YYYY-MM-DD` text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
