public import Foundation

// Events across task versions, as CareKit's streaming event query computes them (carekit-anchors §3 "Across
// task versions", Appendix V-6 to V-9):
// 1. start from the versions in effect for the range (rule 4; each tip while versions are concurrent);
// 2. walk back through `previousVersionUUIDs.first` until a version effective at or before the range start;
// 3. order those versions by effective date, newest first;
// 4. version k counts in [max(eff_k, start), eff_{k+1}); a fully shadowed version contributes nothing.
// Unlike CareKit's `fetchEvents`, a task is not dropped when its newest version's schedule ended before the
// range (V-9): older versions' events in the range are still returned, so nothing is lost.
extension VersionHistory where Entity: SchedulableTask {
    /// The windows in which each version of task `id` counts within `[start, end)`, oldest first.
    public func eventWindows(forTask id: String, from start: Date, to end: Date) -> [TaskVersionWindow<Entity>] {
        guard start < end else { return [] }
        var chain: [Entity] = []
        var seen = Set<UUID>()
        for head in inEffect(during: DateInterval(start: start, end: end)) where head.id == id {
            var current: Entity? = head
            while let version = current, seen.insert(version.uuid).inserted {
                chain.append(version)
                guard version.effectiveDate > start, let previous = version.previousVersionUUIDs.first else { break }
                current = self.version(uuid: previous)
            }
        }
        // Newest effective date first; equal dates keep the walk order (newer versions first).
        let ordered = chain.enumerated()
            .sorted { ($1.element.effectiveDate, $0.offset) < ($0.element.effectiveDate, $1.offset) }
            .map(\.element)
        var windows: [TaskVersionWindow<Entity>] = []
        var windowEnd = end
        for version in ordered {
            let windowStart = max(version.effectiveDate, start)
            if windowStart < windowEnd {
                windows.append(TaskVersionWindow(task: version, interval: DateInterval(start: windowStart, end: windowEnd)))
            }
            windowEnd = min(windowEnd, version.effectiveDate)
            if windowEnd <= start { break }
        }
        return windows.reversed()
    }

    /// The events of task `id` overlapping `[start, end)`, computed in `timeZone`, each from the version in
    /// effect, with the live outcome recorded for it (matched on task version uuid and occurrence index).
    ///
    /// ```swift
    /// let tasks = VersionHistory(storedTaskVersions)
    /// let today = try tasks.events(forTask: "meds", from: midnight, to: nextMidnight,
    ///                              in: newYorkTimeZone, outcomes: storedOutcomes)
    /// ```
    ///
    /// Around a version change both versions may return an event on the same day (one each), and each
    /// version numbers its occurrences from its own schedule's start.
    ///
    /// - Throws: ``CloudantCore/CloudantError/Code/invalidSchedule`` when a version's schedule is one CareKit
    ///   would reject or loop on.
    public func events(
        forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone, outcomes: [Outcome] = []
    ) throws -> [TaskEvent<Entity>] {
        let live = Dictionary(
            VersionHistory<Outcome>(outcomes).liveTips.map { (OutcomeKey($0.taskUUID, $0.taskOccurrenceIndex), $0) },
            uniquingKeysWith: { first, _ in first })
        var events: [TaskEvent<Entity>] = []
        for window in eventWindows(forTask: id, from: start, to: end) {
            let scheduleEvents = try window.task.schedule.events(
                from: window.interval.start, to: window.interval.end, in: timeZone)
            for event in scheduleEvents {
                let outcome = live[OutcomeKey(window.task.uuid, event.occurrence)]
                events.append(TaskEvent(task: window.task, scheduleEvent: event, outcome: outcome))
            }
        }
        return events
    }
}

struct OutcomeKey: Hashable {
    var taskUUID: UUID
    var occurrence: Int

    init(_ taskUUID: UUID, _ occurrence: Int) {
        self.taskUUID = taskUUID
        self.occurrence = occurrence
    }
}
