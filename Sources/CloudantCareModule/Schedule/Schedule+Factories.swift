internal import CloudantCore
public import Foundation

extension Schedule {
    /// A schedule with one event a day at a fixed wall-clock time (CareKit's `dailyAtTime`).
    ///
    /// ```swift
    /// let meds = try Schedule.dailyAtTime(hour: 8, minutes: 0, start: jan1, end: nil, text: "Meds",
    ///                                     calendar: calendar)
    /// ```
    ///
    /// - Parameters:
    ///   - hour: The hour of the events in `calendar`'s time zone.
    ///   - minutes: The minute of the events.
    ///   - start: A date on the first event's day.
    ///   - end: When the schedule ends (exclusive), or `nil`.
    ///   - text: Text about the time, for people.
    ///   - duration: How long each event lasts; one hour unless given.
    ///   - targetValues: What the patient is expected to record.
    ///   - calendar: The calendar (and time zone) in which `hour` and `minutes` are read.
    /// - Throws: `CloudantError.Code.invalidSchedule` when the time does not exist on that day.
    public static func dailyAtTime(
        hour: Int, minutes: Int, start: Date, end: Date?, text: String?,
        duration: ScheduleElement.Duration = .hours(1), targetValues: [OutcomeValue] = [],
        calendar: Calendar = Calendar(identifier: .gregorian)
    ) throws -> Schedule {
        try repeating(
            .daily, at: (hour, minutes, field: "hour"), on: start, end: end, text: text, targetValues: targetValues,
            duration: duration, calendar: calendar)
    }

    /// A schedule with one event a week on a weekday at a fixed wall-clock time (CareKit's `weeklyAtTime`;
    /// the interval is one `weekOfYear`).
    ///
    /// ```swift
    /// let mondays = try Schedule.weeklyAtTime(weekday: 2, hours: 9, minutes: 30, start: jan1, end: nil,
    ///                                         targetValues: [], text: nil, calendar: calendar)
    /// ```
    ///
    /// - Parameters:
    ///   - weekday: The weekday, 1 (Sunday) to 7 (Saturday), of the first event on or after `start`.
    ///   - hours: The hour of the events in `calendar`'s time zone.
    ///   - minutes: The minute of the events.
    ///   - start: The first event is on `weekday` on or after this date.
    ///   - end: When the schedule ends (exclusive), or `nil`.
    ///   - targetValues: What the patient is expected to record.
    ///   - text: Text about the time, for people.
    ///   - duration: How long each event lasts; one hour unless given.
    ///   - calendar: The calendar (and time zone) in which the weekday and time are read.
    /// - Throws: `CloudantError.Code.invalidSchedule` when the weekday or time does not exist.
    public static func weeklyAtTime(
        weekday: Int, hours: Int, minutes: Int, start: Date, end: Date?, targetValues: [OutcomeValue],
        text: String?, duration: ScheduleElement.Duration = .hours(1),
        calendar: Calendar = Calendar(identifier: .gregorian)
    ) throws -> Schedule {
        guard (1...7).contains(weekday) else {
            throw CloudantError(
                .invalidSchedule, "Weekday \(weekday) does not exist; use 1 (Sunday) to 7 (Saturday).",
                context: .init(field: "weekday"))
        }
        let day = calendar.startOfDay(for: start)
        let daysAhead = (weekday - calendar.component(.weekday, from: day) + 7) % 7
        return try repeating(
            .weekly, at: (hours, minutes, field: "hours"), on: calendar.date(byAdding: .day, value: daysAhead, to: day),
            end: end, text: text, targetValues: targetValues, duration: duration, calendar: calendar)
    }

    /// One element repeating every `interval` from `time` on `day`, for the `…AtTime` factories.
    /// - Throws: `CloudantError.Code.invalidSchedule`, naming `time.field`, when the day or the time does not
    ///   exist.
    private static func repeating(
        _ interval: ScheduleInterval, at time: (hour: Int, minutes: Int, field: String), on day: Date?, end: Date?,
        text: String?, targetValues: [OutcomeValue], duration: ScheduleElement.Duration, calendar: Calendar
    ) throws -> Schedule {
        guard let day, let first = calendar.date(bySettingHour: time.hour, minute: time.minutes, second: 0, of: day)
        else {
            throw CloudantError(
                .invalidSchedule,
                "\(time.hour):\(time.minutes) is not a time of day; use an hour 0–23 and minutes 0–59.",
                context: .init(field: time.field))
        }
        let element = ScheduleElement(
            start: first, end: end, interval: interval, text: text, targetValues: targetValues, duration: duration,
            calendar: calendar)
        return Schedule(composing: [element])
    }
}
