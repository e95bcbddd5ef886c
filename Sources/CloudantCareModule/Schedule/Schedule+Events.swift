internal import CloudantCore
public import Foundation

extension Schedule {
    /// Throws unless the schedule has elements, each ends after it starts, and each one's interval moves its
    /// events forward when computed in `timeZone`.
    ///
    /// - Throws: `CloudantError.Code.invalidSchedule`, with the element in `context.field`.
    public func validate(in timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current) throws {
        guard !elements.isEmpty else {
            throw CloudantError(
                .invalidSchedule, "A schedule needs at least one element.", context: .init(field: "elements"))
        }
        for (index, element) in elements.enumerated() {
            try element.validate(in: element.calendar(in: timeZone), elementIndex: index)
        }
    }

    /// The events overlapping `[start, end)`, computed in `timeZone`, with their schedule-wide occurrence indices.
    ///
    /// As CareKit computes them: an event is returned when it starts before `end` and ends at or after `start`
    /// (so an event ending exactly at `start` is returned). Events are ordered by start, then element order.
    /// Occurrence indices count every event of every element from the schedule's start, including events a
    /// query does not return: an event of an element that ended at or before `start` keeps its index but is
    /// not returned.
    ///
    /// ```swift
    /// let wednesday = try schedule.events(from: wedMidnight, to: thuMidnight, in: parisTimeZone)
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidSchedule` for a schedule CareKit would reject or
    ///   loop on for ever.
    public func events(from start: Date, to end: Date, in timeZone: TimeZone) throws -> [ScheduleEvent] {
        try validate(in: timeZone)
        guard start < end else { return [] }
        var all: [ScheduleEvent] = []
        // CareKit's OCKSchedule skips elements that start at or after the end (an all-day element from the start
        // of its day), then computes each element's events up to the end.
        for zoned in zonedElements(in: timeZone) where zoned.start < end {
            all += try zoned.element.events(calendar: zoned.calendar, elementIndex: zoned.position) { event in
                zoned.element.startsBefore(end, eventStart: event.start, calendar: zoned.calendar)
            }
        }
        let before = all.count { $0.end < start }
        let overlapping = Self.ordered(all.filter { $0.end >= start })
        var result: [ScheduleEvent] = []
        for (offset, var event) in overlapping.enumerated() {
            event.occurrence = before + offset
            if let elementEnd = event.element.end, elementEnd <= start { continue }
            result.append(event)
        }
        return result
    }

    /// When the schedule starts as CareKit computes it in `timeZone` (its `startDate()`): the earliest element
    /// start, an all-day element starting at the start of its day; `nil` for an empty schedule.
    public func startDate(in timeZone: TimeZone) -> Date? {
        zonedElements(in: timeZone).first?.start
    }

    /// The elements in CareKit's order for `timeZone`: by start, an all-day element from the start of its day
    /// (CareKit's `OCKScheduleElement` snaps it when it is made), elements that start together in their
    /// stored order. Only an all-day element written with a time of day can move, ahead of elements that
    /// start earlier that day.
    func zonedElements(in timeZone: TimeZone) -> [ZonedElement] {
        elements.enumerated()
            .map { index, element in
                let calendar = element.calendar(in: timeZone)
                let start = element.duration == .allDay ? calendar.startOfDay(for: element.start) : element.start
                return ZonedElement(element: element, calendar: calendar, start: start, position: index)
            }
            .sorted { ($0.start, $0.position) < ($1.start, $1.position) }
            .enumerated()
            .map { position, zoned in
                var placed = zoned
                placed.position = position
                return placed
            }
    }

    /// The event with schedule-wide index `occurrence`, computed in `timeZone`, or `nil` when the schedule ends
    /// before it.
    ///
    /// - Throws: `CloudantError.Code.invalidSchedule` for a schedule CareKit would reject or
    ///   loop on for ever, `CloudantError.Code.invalidInput` for a negative occurrence.
    public func event(forOccurrence occurrence: Int, in timeZone: TimeZone) throws -> ScheduleEvent? {
        guard occurrence >= 0 else {
            throw CloudantError(
                .invalidInput, "Occurrence indices start at 0.", context: .init(field: "taskOccurrenceIndex"))
        }
        let events = try self.events(throughOccurrence: occurrence, in: timeZone)
        return occurrence < events.count ? events[occurrence] : nil
    }

    /// The events with schedule-wide indices `0...occurrence` in order (fewer when the schedule ends first),
    /// computed once: `events(throughOccurrence: k, in: zone)[j]` is `event(forOccurrence: j, in: zone)` for
    /// every `j <= k`, so a batch of outcomes finds all its events for the cost of the largest.
    ///
    /// Why the prefix is exact: the event at index `j` has at most `j` events before it, so it is among the
    /// first `j + 1` of its own element, and an element's later events sort after its earlier ones.
    ///
    /// - Throws: as ``event(forOccurrence:in:)``.
    func events(throughOccurrence occurrence: Int, in timeZone: TimeZone) throws -> [ScheduleEvent] {
        guard occurrence >= 0 else {
            throw CloudantError(
                .invalidInput, "Occurrence indices start at 0.", context: .init(field: "taskOccurrenceIndex"))
        }
        try validate(in: timeZone)
        var all: [ScheduleEvent] = []
        for zoned in zonedElements(in: timeZone) {
            all += try zoned.element.events(calendar: zoned.calendar, elementIndex: zoned.position) {
                $0.occurrence <= occurrence
            }
        }
        var sorted = Array(Self.ordered(all).prefix(occurrence + 1))
        for index in sorted.indices { sorted[index].occurrence = index }
        return sorted
    }

    /// Orders events by start, then by element (stably, whatever the sort algorithm).
    static func ordered(_ events: [ScheduleEvent]) -> [ScheduleEvent] {
        events.sorted {
            ($0.start, $0.elementIndex, $0.occurrence) < ($1.start, $1.elementIndex, $1.occurrence)
        }
    }
}

/// One element of a schedule as CareKit computes it in one zone.
struct ZonedElement {
    /// The element as stored.
    var element: ScheduleElement
    /// Its calendar, computing in the zone.
    var calendar: Calendar
    /// Its first event's start: the start of its day for an all-day element.
    var start: Date
    /// Its position in CareKit's order of the schedule's elements (the events' `elementIndex`).
    var position: Int
}
