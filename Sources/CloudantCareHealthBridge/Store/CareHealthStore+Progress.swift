public import Foundation

/// How far a task got over a day: of its events that day, how many reached their target.
///
/// ```swift
/// let progress = try await careHealth.dailyProgress(taskID: "steps", on: Date())
/// progress.fraction   // 0.5: one of two events reached its target
/// ```
public struct HealthKitTaskProgress: Hashable, Sendable {
    /// The day, from midnight to the next midnight in the zone it was computed in (23 or 25 hours on a DST day).
    public var day: DateInterval
    /// The task's events that day.
    public var eventCount: Int
    /// The events whose outcome reaches their target (see ``HealthKitTaskEvent/isCompleted``).
    public var completedCount: Int

    /// Creates a progress.
    public init(day: DateInterval, eventCount: Int, completedCount: Int) {
        self.day = day
        self.eventCount = eventCount
        self.completedCount = completedCount
    }

    /// `completedCount / eventCount`, 0 for a day without events.
    public var fraction: Double { eventCount == 0 ? 0 : Double(completedCount) / Double(eventCount) }
}

extension CareHealthStore {
    /// The progress of HealthKit-linked task `taskID` over the day holding `date` in `timeZone`: the fraction of the
    /// day's events whose computed value reaches the task's target (CareKit's summing strategy: the sum of the
    /// outcome's values against the sum of the schedule element's numeric target values, in the linkage's unit),
    /// or that have an outcome at all when the element has no numeric target.
    ///
    /// ```swift
    /// let today = try await careHealth.dailyProgress(taskID: "steps", on: Date(), timeZone: paris)
    /// ```
    /// - Parameters:
    ///   - taskID: The HealthKit-linked task's id.
    ///   - date: Any instant of the day.
    ///   - timeZone: The zone of the day and of the schedules; the care store's when `nil`.
    /// - Throws: As ``fetchEvents(taskID:in:timeZone:)``.
    public func dailyProgress(taskID: String, on date: Date, timeZone: TimeZone? = nil) async throws
        -> HealthKitTaskProgress
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone ?? care.timeZone
        let start = calendar.startOfDay(for: date)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        let day = DateInterval(start: start, end: end)
        let events = try await fetchEvents(taskID: taskID, in: day, timeZone: calendar.timeZone)
            .filter { $0.scheduleEvent.start >= start && $0.scheduleEvent.start < end }
        return HealthKitTaskProgress(
            day: day, eventCount: events.count, completedCount: events.filter(\.isCompleted).count)
    }
}
