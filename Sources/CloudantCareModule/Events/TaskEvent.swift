/// One event of one task version, with the outcome recorded for it (CareKit's `OCKEvent`).
///
/// Identified by (``task`` uuid, ``occurrence``), which is stable across launches, unlike CareKit's hashed id.
public struct TaskEvent<Version: SchedulableTask>: Hashable, Sendable {
    /// The task version whose schedule produced the event.
    public var task: Version {
        get { sharedTask.value }
        set { sharedTask = SharedValue(newValue) }
    }
    /// When the event happens and its occurrence index in the task version's schedule.
    public var scheduleEvent: ScheduleEvent
    /// The live outcome for this event, if one was recorded.
    public var outcome: Outcome? {
        get { sharedOutcome?.value }
        set { sharedOutcome = newValue.map(SharedValue.init) }
    }

    // Held by reference: the events of one task version share it (see `SharedValue`).
    private var sharedTask: SharedValue<Version>
    private var sharedOutcome: SharedValue<Outcome>?

    /// The event's occurrence index in the task version's schedule.
    public var occurrence: Int { scheduleEvent.occurrence }

    /// Creates an event.
    public init(task: Version, scheduleEvent: ScheduleEvent, outcome: Outcome? = nil) {
        self.init(sharedTask: SharedValue(task), scheduleEvent: scheduleEvent, outcome: outcome)
    }

    /// An event of a task version other events share.
    init(sharedTask: SharedValue<Version>, scheduleEvent: ScheduleEvent, outcome: Outcome?) {
        self.sharedTask = sharedTask
        self.scheduleEvent = scheduleEvent
        self.sharedOutcome = outcome.map(SharedValue.init)
    }
}
