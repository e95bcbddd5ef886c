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
    /// - Parameter timeZone: The zone schedules are computed in; the store's ``timeZone`` when `nil`.
    /// - Throws: ``CloudantCore/CloudantError/Code/invalidSchedule`` for a schedule CareKit would loop on.
    public func events(forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone? = nil) async throws
        -> [TaskEvent<CareTask>]
    {
        let tasks = try await history(CareTask.self, ids: [id])
        let outcomes = try await outcomeVersions(taskUUIDs: tasks.versions.map(\.uuid))
        return try tasks.events(forTask: id, from: start, to: end, in: timeZone ?? self.timeZone, outcomes: outcomes)
    }
}
