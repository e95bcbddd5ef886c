public import Foundation

extension CareHealthStore {
    /// The events of HealthKit-linked task `taskID` in `interval` with their computed outcomes, now and again
    /// each time they change: a live query over the store's changes feed (CareKit's `events(matching:)` stream).
    ///
    /// The first element is the current state. After that the sequence waits for the store's update sequence to
    /// move (a sample or task written, changed or deleted by any writer: the API, `health import`, replication),
    /// computes the events again and emits them when they differ from the last emitted ones (a change to an
    /// unrelated document emits nothing). Bursts of writes are coalesced: what is read is the store after them.
    /// The sequence ends when the consuming task is cancelled, and throws what a computation throws.
    ///
    /// ```swift
    /// for try await events in careHealth.liveEvents(taskID: "steps", in: today) {
    ///     print(events.first?.outcome?.total ?? 0)
    /// }
    /// ```
    /// - Parameters:
    ///   - taskID: The HealthKit-linked task's id.
    ///   - interval: The range of events.
    ///   - timeZone: The zone schedules are computed in; the care store's when `nil`.
    public func liveEvents(taskID: String, in interval: DateInterval, timeZone: TimeZone? = nil)
        -> AsyncThrowingStream<[HealthKitTaskEvent], any Error>
    {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var seen = try await store.info().updateSeq
                    var last = try await fetchEvents(taskID: taskID, in: interval, timeZone: timeZone)
                    continuation.yield(last)
                    while !Task.isCancelled {
                        // A long timeout only bounds how long one wait lasts; cancellation ends it at once.
                        guard try await store.waitForChange(after: seen, timeout: .seconds(3_600)) else { continue }
                        seen = try await store.info().updateSeq
                        let current = try await fetchEvents(taskID: taskID, in: interval, timeZone: timeZone)
                        if Self.outcomesDiffer(current, last) {
                            continuation.yield(current)
                            last = current
                        }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether two computations differ in anything but the computed values' `createdDate` (stamped at each read).
    static func outcomesDiffer(_ lhs: [HealthKitTaskEvent], _ rhs: [HealthKitTaskEvent]) -> Bool {
        func comparable(_ events: [HealthKitTaskEvent]) -> [HealthKitTaskEvent] {
            events.map { event in
                var copy = event
                if var outcome = copy.outcome {
                    outcome.values = outcome.values.map { value in
                        var stamped = value
                        stamped.createdDate = .distantPast
                        return stamped
                    }
                    copy.outcome = outcome
                }
                return copy
            }
        }
        return comparable(lhs) != comparable(rhs)
    }
}
