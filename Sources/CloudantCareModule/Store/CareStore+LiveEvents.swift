internal import CloudantCore
public import Foundation

extension CareStore {
    /// The events of task `id` overlapping `[start, end)` with their outcomes, as ``events(forTask:from:to:in:)``
    /// computes them: now, then again after each commit that changes them (a new task version, an outcome
    /// recorded, edited or deleted), until the consuming task is cancelled or the store closes.
    ///
    /// ```swift
    /// for try await today in care.observeEvents(forTask: "meds", from: midnight, to: nextMidnight) {
    ///     adherence.text = "\(today.filter { $0.outcome != nil }.count) of \(today.count)"
    /// }
    /// ```
    ///
    /// A burst of commits is computed once, and a list equal to the last one is not repeated.
    public nonisolated func observeEvents(forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone? = nil)
        -> AsyncThrowingStream<[TaskEvent<CareTask>], any Error>
    {
        observeEvents(CareTask.self, forTask: id, from: start, to: end, in: timeZone)
    }

    /// The events of HealthKit-linked task `id`, live: see ``observeEvents(forTask:from:to:in:)``.
    public nonisolated func observeEvents(
        forHealthKitLinkedTask id: String, from start: Date, to end: Date, in timeZone: TimeZone? = nil
    ) -> AsyncThrowingStream<[TaskEvent<HealthKitLinkedTask>], any Error> {
        observeEvents(HealthKitLinkedTask.self, forTask: id, from: start, to: end, in: timeZone)
    }

    private nonisolated func observeEvents<Task: SchedulableTask & CareStorable>(
        _ type: Task.Type, forTask id: String, from start: Date, to end: Date, in timeZone: TimeZone?
    ) -> AsyncThrowingStream<[TaskEvent<Task>], any Error> {
        let taskKind = Task.careKindName
        let outcomeKind = Outcome.careKindName
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: [TaskEvent<Task>].self, bufferingPolicy: .bufferingNewest(1))
        let work = _Concurrency.Task {
            do {
                // Any outcome counts: which task versions an outcome may belong to changes with the task's
                // versions, and recomputing one task's events is cheap.
                let signals = try store.observeChanges { change in
                    guard let document = change.doc, !change.deleted else { return true }
                    switch CareDocument.kind(of: document) {
                    case taskKind?: return document["id"]?.stringValue == id
                    case outcomeKind?: return true
                    default: return false
                    }
                }
                var last: [TaskEvent<Task>]?
                var iterator = signals.makeAsyncIterator()
                repeat {
                    let current = try await self.events(type, forTask: id, from: start, to: end, in: timeZone)
                    if current != last {
                        continuation.yield(current)
                        last = current
                    }
                } while await iterator.next() != nil && !_Concurrency.Task.isCancelled
                continuation.finish()
            } catch {
                if store.isClosed || error is CancellationError { continuation.finish() } else { continuation.finish(throwing: error) }
            }
        }
        continuation.onTermination = { _ in work.cancel() }
        return stream
    }
}
