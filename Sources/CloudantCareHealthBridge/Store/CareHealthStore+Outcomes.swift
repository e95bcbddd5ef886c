public import CloudantCareModule
public import Foundation

extension CareHealthStore {
    /// The events of HealthKit-linked task `taskID` overlapping `interval`, each with its outcome computed from the
    /// stored samples of the linked quantity type (see ``HealthKitOutcome``).
    ///
    /// Events are the care store's (`CareStore.events(forHealthKitLinkedTask:from:to:in:)`):
    /// CareKit's versions, schedules and time zone rules. Each event is computed with the linkage of the task
    /// version that produced it, so a new version that changes the quantity type or unit changes the outcomes
    /// from its effective date on.
    ///
    /// ```swift
    /// let week = DateInterval(start: monday, duration: 7 * 86_400)
    /// for event in try await careHealth.fetchEvents(taskID: "steps", in: week) {
    ///     print(event.scheduleEvent.start, event.outcome?.total ?? 0)
    /// }
    /// ```
    /// - Parameters:
    ///   - taskID: The HealthKit-linked task's id.
    ///   - interval: The range of events.
    ///   - timeZone: The zone schedules are computed in; the care store's when `nil`.
    /// - Throws: `CloudantError.Code.incompatibleUnits` naming the sample when a sample's unit
    ///   measures something else than the linkage's; `CloudantError.Code.invalidUnit` for a unit
    ///   string that does not parse; `CloudantError.Code.invalidSchedule` for a schedule CareKit
    ///   would reject.
    public func fetchEvents(taskID: String, in interval: DateInterval, timeZone: TimeZone? = nil) async throws
        -> [HealthKitTaskEvent]
    {
        let events = try await care.events(
            forHealthKitLinkedTask: taskID, from: interval.start, to: interval.end, in: timeZone)
        return try await computeOutcomes(of: events, taskID: taskID)
    }

    /// The computed outcomes of HealthKit-linked task `taskID` for its events overlapping `interval`, in event
    /// order; events without samples have none (see ``fetchEvents(taskID:in:timeZone:)``).
    ///
    /// ```swift
    /// let outcomes = try await careHealth.fetchOutcomes(for: "steps", in: today)
    /// let steps = outcomes.first?.total ?? 0
    /// ```
    /// - Throws: As ``fetchEvents(taskID:in:timeZone:)``.
    public func fetchOutcomes(for taskID: String, in interval: DateInterval, timeZone: TimeZone? = nil) async throws
        -> [HealthKitOutcome]
    {
        try await fetchEvents(taskID: taskID, in: interval, timeZone: timeZone).compactMap(\.outcome)
    }

    /// The computed outcomes of `task` (any of its versions: the task is found by its id).
    ///
    /// ```swift
    /// let outcomes = try await careHealth.fetchOutcomes(for: stepsTask, in: today)
    /// ```
    /// - Throws: As ``fetchEvents(taskID:in:timeZone:)``.
    public func fetchOutcomes(for task: HealthKitLinkedTask, in interval: DateInterval, timeZone: TimeZone? = nil)
        async throws -> [HealthKitOutcome]
    {
        try await fetchOutcomes(for: task.id, in: interval, timeZone: timeZone)
    }

    /// Pairs each event with its outcome: events are grouped by their version's linkage, and each group reads the
    /// samples of its quantity type once, over the span of its events.
    func computeOutcomes(of events: [TaskEvent<HealthKitLinkedTask>], taskID: String) async throws
        -> [HealthKitTaskEvent]
    {
        var outcomes = [HealthKitOutcome?](repeating: nil, count: events.count)
        let groups = Dictionary(grouping: events.indices, by: { events[$0].task.healthKitLinkage })
        let computedAt = now()
        for (linkage, indices) in groups.sorted(by: { $0.value[0] < $1.value[0] }) {
            let windows = indices.map { OutcomeCalculator.window(of: events[$0].scheduleEvent) }
            guard let start = windows.map(\.start).min(), let end = windows.map(\.end).max()
            else { continue }
            var converter = try LinkedUnitConverter(linkage: linkage, taskID: taskID)
            // An instantaneous sample at an event's end belongs to the next event, so `end` is exclusive here too.
            let samples = try await sampleReadings(linkage.quantityIdentifier, from: start, to: end, converter: &converter)
            let computed = OutcomeCalculator.outcomes(
                for: indices.map { (events[$0].task.uuid, events[$0].scheduleEvent) }, linkage: linkage,
                samples: samples, computedAt: computedAt)
            for (index, outcome) in zip(indices, computed) { outcomes[index] = outcome }
        }
        return zip(events, outcomes).map { event, outcome in
            HealthKitTaskEvent(task: event.task, scheduleEvent: event.scheduleEvent, outcome: outcome)
        }
    }
}
