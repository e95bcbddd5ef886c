import CloudantTestSupport
import Foundation
import Testing

/// Wall-clock dates in a named zone, for readable schedule tests.
struct Zone {
    let timeZone: TimeZone
    let calendar: Calendar

    init(_ identifier: String) throws {
        let timeZone = try #require(TimeZone(identifier: identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.timeZone = timeZone
        self.calendar = calendar
    }

    static func utc() throws -> Zone { try Zone("UTC") }
    static func newYork() throws -> Zone { try Zone("America/New_York") }
    static func paris() throws -> Zone { try Zone("Europe/Paris") }

    /// The instant at this wall-clock time (a repeated time resolves as Foundation resolves it).
    func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) throws
        -> Date
    {
        try #require(
            calendar.date(
                from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)))
    }

    /// The wall-clock parts of `date` in this zone, for assertions.
    func wallClock(_ date: Date) -> WallClock {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return WallClock(
            year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0, hour: parts.hour ?? 0,
            minute: parts.minute ?? 0, second: parts.second ?? 0)
    }
}

struct WallClock: Equatable, CustomStringConvertible {
    var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    var description: String { "\(year)-\(month)-\(day) \(hour):\(minute):\(second)" }
}

/// Deterministic version uuids for tests (`UUID.numbered`, shortened for the many call sites).
func testUUID(_ number: Int) -> UUID { UUID.numbered(number) }
