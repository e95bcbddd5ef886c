public import Foundation

// Events across task versions, as CareKit 4's streaming event query computes them (`events(matching:)`, through
// OCKReadOnlyEventStore+PartialEventsStream.swift and +VersioningUtilities.swift):
// 1. the heads: the versions of the task that CareKit's task query returns for the range (not deleted, effective
//    before its end, and not replaced by a version effective before its end), each tip while versions are
//    concurrent;
// 2. from each head, walk back through `previousVersionUUIDs.first` (a deleted version ends the walk); stop at
//    the first version effective before the range start, but only when the head itself is effective at or before
//    the range start: a head effective later keeps walking to the first version, so an older version with a
//    later effective date takes over from that date;
// 3. sort that chain by effective date, newest first (equal dates keep chain order, newer versions first);
// 4. each version computes its events from max(its effective date, range start) to the effective date of the
//    version before it in that order (the range end for the first); an empty window contributes nothing.
//    As in CareKit, the window's end is that effective date even when it lies after the range end, so the
//    version before it can return events past the range end;
// 5. events of all heads are put together (an event two heads reach comes back twice, as in CareKit) and sorted by
//    start, then task version uuid, then occurrence.
// Unlike CareKit's `fetchEvents`, a task is not dropped when its newest version's schedule ended before the range:
// older versions' events in the range are still returned, so nothing is lost.
extension VersionHistory where Entity: SchedulableTask {
    /// The windows in which the versions of task `id` compute their events for the range `[start, end)` in
    /// `timeZone`: one list per head (one head unless versions are concurrent), each oldest effective date first.
    ///
    /// A window may end after `end` when an older version in the chain has a later effective date than a newer
    /// one (CareKit's rule, reproduced); a version shadowed for the whole range has no window.
    public func eventWindows(forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone)
        -> [TaskVersionWindow<Entity>]
    {
        guard start < end else { return [] }
        // Computed once per version: the walk and the sorts below ask for them many times.
        let dates = Dictionary(
            versions(id: id).map { ($0.uuid, $0.effectiveDate(in: timeZone)) }, uniquingKeysWith: { first, _ in first })
        let effective = { (version: Entity) in dates[version.uuid] ?? version.effectiveDate(in: timeZone) }
        var windows: [TaskVersionWindow<Entity>] = []
        for head in heads(forTask: id, before: end, effective: effective) {
            let chain = versionChain(from: head, rangeStart: start, effective: effective)
            // Newest effective date first; equal dates keep the chain order, newer versions first.
            let ordered = chain.enumerated()
                .sorted { (effective($1.element), $0.offset) < (effective($0.element), $1.offset) }
                .map(\.element)
            var chainWindows: [TaskVersionWindow<Entity>] = []
            var windowEnd = end
            for version in ordered {
                let windowStart = max(effective(version), start)
                if windowStart < windowEnd {
                    chainWindows.append(
                        TaskVersionWindow(task: version, interval: DateInterval(start: windowStart, end: windowEnd)))
                }
                windowEnd = effective(version)
            }
            windows += chainWindows.reversed()
        }
        return windows
    }

    /// The events of task `id` for the range `[start, end)`, computed in `timeZone` as CareKit's event query does,
    /// each from its task version, with the live outcome recorded for it (matched on task version uuid and
    /// occurrence index).
    ///
    /// ```swift
    /// let tasks = VersionHistory(storedTaskVersions)
    /// let today = try tasks.events(forTask: "meds", from: midnight, to: nextMidnight,
    ///                              in: newYorkTimeZone, outcomes: storedOutcomes)
    /// ```
    ///
    /// Around a version change both versions may return an event on the same day (one each), and each
    /// version numbers its occurrences from its own schedule's start. Events are ordered by start, then task
    /// version uuid, then occurrence.
    ///
    /// As in CareKit, an event comes back twice when two heads reach the same version in their windows: with
    /// concurrent versions, or when an older version is a head because the version replacing it takes effect
    /// after the range end while a newer one, effective earlier, walks back to it.
    ///
    /// - Throws: `CloudantError.Code.invalidSchedule` when a version's schedule is one CareKit
    ///   would reject or loop on.
    public func events(
        forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone, outcomes: [Outcome] = []
    ) throws -> [TaskEvent<Entity>] {
        let live = Dictionary(
            VersionHistory<Outcome>(outcomes).liveTips.map { (OutcomeKey($0.taskUUID, $0.taskOccurrenceIndex), $0) },
            uniquingKeysWith: { first, _ in first })
        var events: [TaskEvent<Entity>] = []
        let windows = eventWindows(forTask: id, from: start, to: end, in: timeZone)
        for window in windows {
            let scheduleEvents = try window.task.schedule.events(
                from: window.interval.start, to: window.interval.end, in: timeZone)
            let task = SharedValue(window.task)
            events.reserveCapacity(events.count + scheduleEvents.count)
            for event in scheduleEvents {
                let outcome = live[OutcomeKey(window.task.uuid, event.occurrence)]
                events.append(TaskEvent(sharedTask: task, scheduleEvent: event, outcome: outcome))
            }
        }
        // One window's events are already in order: `Schedule.events` returns them by start, numbered in that
        // order, all of one task version. Only several windows need the sort. (Checking the order instead cost
        // more than expanding the schedule: a generic walk over pairs of events, copying each.)
        return windows.count > 1 ? events.sorted(by: Self.eventPrecedes) : events
    }

    /// By start, then task version uuid (as its text, which orders as its bytes do), then occurrence.
    private static func eventPrecedes(_ lhs: TaskEvent<Entity>, _ rhs: TaskEvent<Entity>) -> Bool {
        if lhs.scheduleEvent.start != rhs.scheduleEvent.start {
            return lhs.scheduleEvent.start < rhs.scheduleEvent.start
        }
        let (left, right) = (lhs.task.uuid, rhs.task.uuid)
        if left != right { return left.uuidBytesPrecede(right) }
        return lhs.occurrence < rhs.occurrence
    }

    /// CareKit's task query for a range ending at `end`: versions of `id` that are not deleted, effective before
    /// `end`, and that no version replaces before `end` (no next version, or some next version effective at or
    /// after `end`).
    private func heads(forTask id: String, before end: Date, effective: (Entity) -> Date) -> [Entity] {
        versions(id: id).filter { version in
            guard version.deletedDate == nil, effective(version) < end else { return false }
            let replacements = next(of: version)
            return replacements.isEmpty || replacements.contains { effective($0) >= end }
        }
    }

    /// CareKit's `fetchTaskVersionChain`: from `head` back through the first previous version. The walk stops at
    /// a missing or deleted version (CareKit's fetch of a previous version skips deleted ones), and at the first
    /// version effective before the range start when the head is effective at or before the range start.
    private func versionChain(from head: Entity, rangeStart: Date, effective: (Entity) -> Date) -> [Entity] {
        var chain = [head]
        var seen: Set<UUID> = [head.uuid]
        var current = head
        while let previousUUID = current.previousVersionUUIDs.first, let previous = version(uuid: previousUUID),
            previous.deletedDate == nil, seen.insert(previous.uuid).inserted
        {
            if effective(previous) < rangeStart && effective(head) <= rangeStart { break }
            chain.append(previous)
            current = previous
        }
        return chain
    }
}

extension SchedulableTask {
    /// When this version takes effect for events computed in `timeZone`: its ``VersionedEntity/effectiveDate``,
    /// unless that is its schedule's start as written, CareKit's default effective date. Then it is the schedule's
    /// start as CareKit computes it, ``Schedule/startDate(in:)``: CareKit snaps an all-day element to the start of
    /// its day when it makes it, so a task whose all-day schedule is written as starting at 20:00 is effective (and
    /// has its event) from midnight that day.
    public func effectiveDate(in timeZone: TimeZone) -> Date {
        guard let written = schedule.startDate, effectiveDate == written,
            let computed = schedule.startDate(in: timeZone)
        else { return effectiveDate }
        return computed
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

extension UUID {
    /// Whether this uuid's 16 bytes come before `other`'s: the order of their `uuidString`s (upper-case hex digits
    /// at fixed places, `0`–`9` before `A`–`F`), without building the strings.
    func uuidBytesPrecede(_ other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { left in
            withUnsafeBytes(of: other.uuid) { right in
                left.lexicographicallyPrecedes(right)
            }
        }
    }
}
