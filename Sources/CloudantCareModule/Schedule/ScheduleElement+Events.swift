internal import CloudantCore
internal import Foundation

// Event stepping, as CareKit's `OCKScheduleElement` computes it:
// - occurrence 0 is at `start`; each next event is the previous event's start plus `interval`, added by the
//   calendar (chained, so a monthly element from Jan 31 stays on the 28th after February);
// - an all-day event runs from the start of its day to one second before the next day;
// - an event exists while its start is before `end` (all-day: or on the day of `end − 1 s`).
// Where CareKit would step on the spot for ever, this throws `invalidSchedule` instead.
extension ScheduleElement {
    /// The element's calendar, computing in `timeZone`.
    func calendar(in timeZone: TimeZone) -> Calendar {
        var calendar = self.calendar
        calendar.timeZone = timeZone
        return calendar
    }

    /// Throws unless `end` is after `start` and the first step moves the events forward in `calendar`.
    func validate(in calendar: Calendar, elementIndex: Int) throws {
        if let end, end <= start {
            throw CloudantError(
                .invalidSchedule, "The element ends at or before its start; set an end after the start, or none.",
                context: .init(field: "elements[\(elementIndex)].end"))
        }
        guard
            let first = event(
                on: start, occurrence: 0, calendar: calendar, elementIndex: elementIndex, shared: SharedValue(self))
        else {
            return
        }
        _ = try step(after: first, calendar: calendar, elementIndex: elementIndex)
    }

    /// Every event from occurrence 0 while `shouldContinue` holds and the element has not ended.
    /// Occurrences are the element's own (0, 1, 2, …).
    func events(
        calendar: Calendar, elementIndex: Int, while shouldContinue: (ScheduleEvent) -> Bool
    ) throws -> [ScheduleEvent] {
        var events: [ScheduleEvent] = []
        let shared = SharedValue(self)
        var next = event(on: start, occurrence: 0, calendar: calendar, elementIndex: elementIndex, shared: shared)
        while let current = next, shouldContinue(current) {
            events.append(current)
            let date = try step(after: current, calendar: calendar, elementIndex: elementIndex)
            next = event(
                on: date, occurrence: current.occurrence + 1, calendar: calendar, elementIndex: elementIndex,
                shared: shared)
        }
        return events
    }

    /// Whether an event starting at `eventStart` starts before `limit` (all-day: or on the day of `limit − 1 s`).
    func startsBefore(_ limit: Date, eventStart: Date, calendar: Calendar) -> Bool {
        if eventStart < limit { return true }
        guard duration == .allDay, let lastSecond = calendar.date(byAdding: .second, value: -1, to: limit) else {
            return false
        }
        return calendar.isDate(eventStart, inSameDayAs: lastSecond)
    }

    /// The event on `date`, or `nil` when the element has ended by then; `shared` is this element, held once
    /// for all its events.
    private func event(
        on date: Date, occurrence: Int, calendar: Calendar, elementIndex: Int, shared: SharedValue<ScheduleElement>
    ) -> ScheduleEvent? {
        let eventStart: Date
        let eventEnd: Date
        switch duration {
        case .allDay:
            eventStart = calendar.startOfDay(for: date)
            guard let lastSecond = calendar.date(byAdding: DateComponents(day: 1, second: -1), to: eventStart) else {
                return nil
            }
            eventEnd = lastSecond
        case .seconds(let seconds):
            eventStart = date
            eventEnd = date.addingTimeInterval(seconds)
        }
        if let end, !startsBefore(end, eventStart: eventStart, calendar: calendar) { return nil }
        return ScheduleEvent(
            start: eventStart, end: eventEnd, occurrence: occurrence, elementIndex: elementIndex, element: shared)
    }

    /// The date the event after `event` is computed on; throws when stepping would not move forward, the case
    /// in which CareKit's loop never ends (a zero or backward interval, an all-day element stepped by less than a
    /// day, or by 24 hours across a 25-hour day).
    private func step(after event: ScheduleEvent, calendar: Calendar, elementIndex: Int) throws -> Date {
        guard let date = calendar.date(byAdding: interval.dateComponents, to: event.start) else {
            throw CloudantError(
                .invalidSchedule, "The calendar cannot add the element's interval; use a smaller interval.",
                context: .init(field: "elements[\(elementIndex)].interval"))
        }
        let nextStart = duration == .allDay ? calendar.startOfDay(for: date) : date
        guard nextStart > event.start else {
            let reason =
                duration == .allDay
                ? "An all-day element's interval must reach the next day (use days, weeks, months or years)."
                : "The interval must move forward in time; give it a positive length."
            throw CloudantError(
                .invalidSchedule, reason, context: .init(field: "elements[\(elementIndex)].interval"))
        }
        return date
    }
}
