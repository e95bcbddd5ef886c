import CloudantCareModule
import Foundation

extension Zone {
    /// The events from `start` to `end`, queried in this zone, of a schedule of one element with no end that
    /// begins at `first` and repeats every `interval`, stepped in this zone's calendar: what most schedule
    /// tests ask of CareKit's rules.
    func events(
        startingAt first: Date, every interval: ScheduleInterval, duration: ScheduleElement.Duration = .hours(1),
        from start: Date, to end: Date
    ) throws -> [ScheduleEvent] {
        let element = ScheduleElement(start: first, end: nil, interval: interval, duration: duration, calendar: calendar)
        return try Schedule(composing: [element]).events(from: start, to: end, in: timeZone)
    }
}
