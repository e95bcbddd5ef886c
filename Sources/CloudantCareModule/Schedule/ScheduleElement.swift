public import Foundation

/// One repeating part of a ``Schedule`` (CareKit's `OCKScheduleElement`): events from `start`, `interval`
/// apart, each lasting `duration`, until `end` (exclusive).
///
/// ```swift
/// let mornings = ScheduleElement(start: mondayAt8, end: nil, interval: .daily, duration: .hours(1))
/// ```
///
/// JSON is CareKit 4's; JSON written by CareKit 3, which has no `calendar`, decodes with a Gregorian calendar.
public struct ScheduleElement: Codable, Hashable, Sendable {
    /// When the first event starts (the start of that day for all-day elements).
    public let start: Date
    /// No event starts at or after this instant (an all-day event on the day of `end − 1 s` still counts).
    public var end: Date?
    /// How far apart the events are.
    public var interval: ScheduleInterval
    /// How long each event lasts.
    public var duration: Duration
    /// Text about the time, for people (`"after breakfast"`).
    public var text: String?
    /// What the patient is expected to record for each event.
    public var targetValues: [OutcomeValue]
    /// The calendar whose rules step the events (its time zone is replaced by the zone an event query names).
    public var calendar: Calendar

    /// Creates an element. An all-day element's start is moved to the start of its day in `calendar`.
    ///
    /// Nothing is checked here; `Schedule.validate()` and every event query reject elements CareKit would
    /// refuse or loop on, with `CloudantError.Code.invalidSchedule`.
    ///
    /// - Parameters:
    ///   - start: When the first event starts.
    ///   - end: When the element ends (exclusive), or `nil` to repeat for ever.
    ///   - interval: How far apart the events are.
    ///   - text: Text about the time, for people.
    ///   - targetValues: What the patient is expected to record.
    ///   - duration: How long each event lasts; one hour unless given.
    ///   - calendar: The calendar that steps the events; Gregorian in the current time zone unless given.
    public init(
        start: Date, end: Date?, interval: ScheduleInterval, text: String? = nil, targetValues: [OutcomeValue] = [],
        duration: Duration = .hours(1), calendar: Calendar = Calendar(identifier: .gregorian)
    ) {
        self.start = duration == .allDay ? calendar.startOfDay(for: start) : start
        self.end = end
        self.interval = interval
        self.text = text
        self.targetValues = targetValues
        self.duration = duration
        self.calendar = calendar
    }

    /// CareKit 4's keys, which the synthesized encoder writes in this order (`nil` members left out).
    enum CodingKeys: String, CodingKey {
        case start, end, interval, duration, text, targetValues, calendar
    }

    /// Reads CareKit 3 or 4 JSON; dates may be ISO 8601 text or seconds since 2001-01-01. The stored `start`
    /// is kept as written.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = try container.decodeCareDate(forKey: .start)
        end = try container.decodeCareDateIfPresent(forKey: .end)
        interval = try container.decode(ScheduleInterval.self, forKey: .interval)
        duration = try container.decodeIfPresent(Duration.self, forKey: .duration) ?? .hours(1)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        targetValues = try container.decodeIfPresent([OutcomeValue].self, forKey: .targetValues) ?? []
        calendar = try container.decodeIfPresent(Calendar.self, forKey: .calendar) ?? Calendar(identifier: .gregorian)
    }

    /// A copy with the start and end moved by `components` (CareKit's `offset(by:)`); `nil` when the calendar
    /// cannot add them.
    public func offset(by components: ScheduleInterval) -> ScheduleElement? {
        guard let newStart = calendar.date(byAdding: components.dateComponents, to: start) else { return nil }
        var newEnd: Date?
        if let end {
            guard let moved = calendar.date(byAdding: components.dateComponents, to: end) else { return nil }
            newEnd = moved
        }
        return ScheduleElement(
            start: newStart, end: newEnd, interval: interval, text: text, targetValues: targetValues,
            duration: duration, calendar: calendar)
    }
}
