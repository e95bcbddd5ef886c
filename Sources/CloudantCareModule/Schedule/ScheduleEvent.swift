public import Foundation

/// One occurrence of a schedule (CareKit's `OCKScheduleEvent`).
///
/// `occurrence` is the event's index in the whole schedule, counting every element's events in start order;
/// outcomes point at events by it.
public struct ScheduleEvent: Hashable, Sendable {
    /// When the event starts.
    public var start: Date
    /// When the event ends (one second before the next day for all-day events).
    public var end: Date
    /// The event's index across the whole schedule.
    public var occurrence: Int
    /// The index of the element in ``Schedule/elements`` that produced the event.
    public var elementIndex: Int
    /// The element that produced the event.
    public var element: ScheduleElement

    /// Creates an event.
    public init(start: Date, end: Date, occurrence: Int, elementIndex: Int, element: ScheduleElement) {
        self.start = start
        self.end = end
        self.occurrence = occurrence
        self.elementIndex = elementIndex
        self.element = element
    }
}
