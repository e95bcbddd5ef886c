/// One event of one task version, with the outcome recorded for it (CareKit's `OCKEvent`).
///
/// Identified by (``task`` uuid, ``occurrence``), which is stable across launches, unlike CareKit's hashed id.
public struct TaskEvent<Version: SchedulableTask>: Hashable, Sendable {
    /// The task version whose schedule produced the event.
    public var task: Version
    /// When the event happens and its occurrence index in the task version's schedule.
    public var scheduleEvent: ScheduleEvent
    /// The live outcome for this event, if one was recorded.
    public var outcome: Outcome?

    /// The event's occurrence index in the task version's schedule.
    public var occurrence: Int { scheduleEvent.occurrence }

    /// Creates an event.
    public init(task: Version, scheduleEvent: ScheduleEvent, outcome: Outcome? = nil) {
        self.task = task
        self.scheduleEvent = scheduleEvent
        self.outcome = outcome
    }
}
