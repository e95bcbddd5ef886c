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
    /// The position of the element that produced the event among the schedule's elements in CareKit's order for
    /// the zone the event was computed in: by start, an all-day element from the start of its day. That is its
    /// index in ``Schedule/elements`` unless an all-day element is written with a time of day later than another
    /// element's start on the same day (CareKit snaps the all-day element to midnight, so it comes first).
    public var elementIndex: Int
    /// The element that produced the event.
    public var element: ScheduleElement {
        get { sharedElement.value }
        set { sharedElement = SharedValue(newValue) }
    }

    // Held by reference: every event of an element shares it (see `SharedValue`).
    private var sharedElement: SharedValue<ScheduleElement>

    /// Creates an event.
    public init(start: Date, end: Date, occurrence: Int, elementIndex: Int, element: ScheduleElement) {
        self.init(start: start, end: end, occurrence: occurrence, elementIndex: elementIndex, element: SharedValue(element))
    }

    /// An event of an element other events share.
    init(start: Date, end: Date, occurrence: Int, elementIndex: Int, element: SharedValue<ScheduleElement>) {
        self.start = start
        self.end = end
        self.occurrence = occurrence
        self.elementIndex = elementIndex
        self.sharedElement = element
    }
}
