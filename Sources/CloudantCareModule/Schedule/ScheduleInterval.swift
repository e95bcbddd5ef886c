public import Foundation

/// How far apart a schedule element's events are: the seven calendar components CareKit's store keeps of an
/// element's `DateComponents` interval.
///
/// Day, week, month and year steps keep the wall-clock time across daylight-saving changes; hour, minute and
/// second steps are absolute time (`ScheduleInterval(hours: 24)` is not `ScheduleInterval(days: 1)`).
/// JSON is CareKit's `DateComponents` shape, all seven keys written:
/// `{"year":0,"month":0,"weekOfYear":0,"day":1,"hour":0,"minute":0,"second":0}`.
///
/// ```swift
/// let everyOtherDay = ScheduleInterval(days: 2)
/// ```
public struct ScheduleInterval: Codable, Hashable, Sendable {
    /// Whole years.
    public var years: Int
    /// Whole months.
    public var months: Int
    /// Whole weeks (`weekOfYear`).
    public var weeks: Int
    /// Whole days.
    public var days: Int
    /// Hours (absolute time).
    public var hours: Int
    /// Minutes (absolute time).
    public var minutes: Int
    /// Seconds (absolute time).
    public var seconds: Int

    /// Creates an interval; every component defaults to zero.
    public init(
        years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0,
        seconds: Int = 0
    ) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Takes the seven components CareKit keeps from `DateComponents`; any other component is dropped, as
    /// CareKit's store drops it.
    public init(_ components: DateComponents) {
        self.init(
            years: components.year ?? 0, months: components.month ?? 0, weeks: components.weekOfYear ?? 0,
            days: components.day ?? 0, hours: components.hour ?? 0, minutes: components.minute ?? 0,
            seconds: components.second ?? 0)
    }

    /// The interval as `DateComponents`, with only the non-zero components set.
    public var dateComponents: DateComponents {
        func nonZero(_ value: Int) -> Int? { value == 0 ? nil : value }
        return DateComponents(
            year: nonZero(years), month: nonZero(months), day: nonZero(days), hour: nonZero(hours),
            minute: nonZero(minutes), second: nonZero(seconds), weekOfYear: nonZero(weeks))
    }

    /// One day.
    public static let daily = ScheduleInterval(days: 1)
    /// One week.
    public static let weekly = ScheduleInterval(weeks: 1)

    /// The `DateComponents` keys; the synthesized encoder writes all seven components, as CareKit's store writes them.
    enum CodingKeys: String, CodingKey {
        case years = "year", months = "month", weeks = "weekOfYear", days = "day", hours = "hour"
        case minutes = "minute", seconds = "second"
    }

    /// Reads `DateComponents` JSON; absent components are zero and components other than the seven are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func component(_ key: CodingKeys) throws -> Int { try container.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        self.init(
            years: try component(.years), months: try component(.months), weeks: try component(.weeks),
            days: try component(.days), hours: try component(.hours), minutes: try component(.minutes),
            seconds: try component(.seconds))
    }

}
