public import Foundation

/// When a task's events happen (CareKit's `OCKSchedule`): one or more ``ScheduleElement``s.
///
/// ```swift
/// let schedule = try Schedule.dailyAtTime(hour: 8, minutes: 0, start: monday, end: nil, text: "Meds",
///                                         calendar: calendar)
/// let events = try schedule.events(from: wednesday, to: thursday, in: calendar.timeZone)
/// ```
///
/// JSON is CareKit's `{"elements":[…]}`.
public struct Schedule: Codable, Hashable, Sendable {
    /// The elements: sorted by start when composed, in their written order when decoded (as CareKit's decoder
    /// keeps them). Events order them as CareKit does, by start with an all-day element from the start of its day
    /// and ties in this order (see ``ScheduleEvent/elementIndex``).
    public private(set) var elements: [ScheduleElement]

    /// Creates a schedule from elements, sorting them by start (stably).
    ///
    /// A schedule needs at least one element; `validate()` and event queries reject an empty one.
    public init(composing elements: [ScheduleElement]) {
        self.elements = Self.sortedByStart(elements)
    }

    /// Creates a schedule from the elements of several schedules, sorting them by start (stably).
    public init(composing schedules: [Schedule]) {
        self.init(composing: schedules.flatMap(\.elements))
    }

    enum CodingKeys: String, CodingKey {
        case elements
    }

    /// Reads `{"elements":[…]}`, keeping the elements in the order written. Sorting here by the written start
    /// would misorder an all-day element written with a time of day: CareKit orders it from the start of its
    /// day, which depends on the zone events are computed in, so events order the elements then.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        elements = try container.decode([ScheduleElement].self, forKey: .elements)
    }

    /// Writes `{"elements":[…]}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(elements, forKey: .elements)
    }

    /// When the earliest element starts, as written; `nil` only for an empty (invalid) schedule.
    public var startDate: Date? { elements.map(\.start).min() }

    /// When the last element ends, or `nil` if some element repeats for ever.
    public var endDate: Date? {
        var latest: Date?
        for element in elements {
            guard let end = element.end else { return nil }
            latest = max(latest ?? end, end)
        }
        return latest
    }

    /// Whether the schedule spans the day of `date` in `calendar` (started by the day's end and not ended by its
    /// start), even if that day has no event: CareKit's `exists(onDay:)`.
    public func exists(onDay date: Date, calendar: Calendar) -> Bool {
        guard let start = startDate else { return false }
        let firstMoment = calendar.startOfDay(for: date)
        guard let lastMoment = calendar.date(byAdding: DateComponents(day: 1, second: -1), to: firstMoment) else {
            return false
        }
        guard let end = endDate else { return start <= lastMoment }
        return start < lastMoment && end > firstMoment
    }

    /// A copy with every element moved by `components` (CareKit's `offset(by:)`); `nil` when a calendar
    /// cannot add them.
    public func offset(by components: ScheduleInterval) -> Schedule? {
        var moved: [ScheduleElement] = []
        for element in elements {
            guard let shifted = element.offset(by: components) else { return nil }
            moved.append(shifted)
        }
        return Schedule(composing: moved)
    }

    private static func sortedByStart(_ elements: [ScheduleElement]) -> [ScheduleElement] {
        // Swift's `sorted` is not documented as stable, and occurrence indices depend on the order of elements
        // that start together, so ties are broken by the given position explicitly.
        elements.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
    }
}
