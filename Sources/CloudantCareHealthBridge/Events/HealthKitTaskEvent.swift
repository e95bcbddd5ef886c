public import CloudantCareModule

/// One event of a HealthKit-linked task with its outcome computed from the stored samples (CareKit's `OCKEvent`
/// of an `OCKHealthKitTask`).
///
/// ```swift
/// for event in try await careHealth.fetchEvents(taskID: "steps", in: thisWeek) {
///     print(event.scheduleEvent.start, event.outcome?.total ?? 0)
/// }
/// ```
public struct HealthKitTaskEvent: Hashable, Sendable {
    /// The task version whose schedule produced the event (its `HealthKitLinkedTask.healthKitLinkage`
    /// is the one the outcome was computed with).
    public var task: HealthKitLinkedTask
    /// When the event happens and its occurrence index.
    public var scheduleEvent: ScheduleEvent
    /// The computed outcome; `nil` when no sample of the linked type falls in the event, as in CareKit.
    public var outcome: HealthKitOutcome?

    /// Creates an event.
    public init(task: HealthKitLinkedTask, scheduleEvent: ScheduleEvent, outcome: HealthKitOutcome?) {
        self.task = task
        self.scheduleEvent = scheduleEvent
        self.outcome = outcome
    }

    /// Whether the event's outcome reaches its target: the sum of the numeric values is at least the sum of the
    /// numeric target values of the event's schedule element (CareKit's default, summing progress); an event
    /// without a numeric target is done when it has an outcome.
    public var isCompleted: Bool {
        guard let outcome else { return false }
        let target = scheduleEvent.element.targetValues.compactMap(\.numericValue).reduce(0, +)
        guard scheduleEvent.element.targetValues.contains(where: { $0.numericValue != nil }) else { return true }
        return outcome.total >= target
    }
}
