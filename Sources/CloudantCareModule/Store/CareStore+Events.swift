public import Foundation
internal import CloudantCore

extension CareStore {
    /// The events of task `id` overlapping `[start, end)`, each from the task version in effect, with the live
    /// outcome recorded for it (matched on task version uuid and occurrence index), as CareKit's event query.
    ///
    /// ```swift
    /// let today = try await care.events(forTask: "meds", from: midnight, to: nextMidnight, in: paris)
    /// today.filter { $0.outcome == nil }    // still to do
    /// ```
    /// - Parameters:
    ///   - id: The task's id.
    ///   - start: The start of the range.
    ///   - end: The end of the range (excluded).
    ///   - timeZone: The zone schedules are computed in; the store's ``timeZone`` when `nil`.
    /// - Throws: `CloudantError.Code.invalidSchedule` for a schedule CareKit would loop on.
    public func events(forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone? = nil) async throws
        -> [TaskEvent<CareTask>]
    {
        try await events(CareTask.self, forTask: id, from: start, to: end, in: timeZone)
    }

    /// The events of HealthKit-linked task `id` overlapping `[start, end)`, as ``events(forTask:from:to:in:)``
    /// computes them for a ``CareTask``: the same schedules, versions and outcome matching.
    ///
    /// ```swift
    /// let steps = try await care.events(forHealthKitLinkedTask: "steps", from: monday, to: nextMonday)
    /// ```
    public func events(
        forHealthKitLinkedTask id: String, from start: Date, to end: Date, in timeZone: TimeZone? = nil
    ) async throws -> [TaskEvent<HealthKitLinkedTask>] {
        try await events(HealthKitLinkedTask.self, forTask: id, from: start, to: end, in: timeZone)
    }

    func events<Task: SchedulableTask & CareStorable>(
        _ type: Task.Type, forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone?
    ) async throws -> [TaskEvent<Task>] {
        let tasks = try await history(Task.self, ids: [id])
        let outcomes = try await outcomeVersions(taskUUIDs: tasks.versions.map(\.uuid))
        return try tasks.events(forTask: id, from: start, to: end, in: timeZone ?? self.timeZone, outcomes: outcomes)
    }
}
