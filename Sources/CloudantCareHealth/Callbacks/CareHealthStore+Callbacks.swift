public import CloudantCareHealthBridge
public import CloudantCore
public import Dispatch
public import Foundation

/// The callback API OTFCloudantStore's and CareKit's users know, as a thin adapter over the async API: each
/// completion is called exactly once, on `callbackQueue`, with the async call's result or its
/// `CloudantError`. On Linux the main queue runs only when the process drains it; pass a queue
/// of your own from a tool that blocks its main thread.
extension CareHealthStore {
    /// The events of a HealthKit-linked task with their computed outcomes; see `fetchEvents(taskID:in:timeZone:)`.
    ///
    /// ```swift
    /// careHealth.fetchEvents(taskID: "steps", in: today, callbackQueue: queue) { result in
    ///     if case .success(let events) = result { print(events.count) }
    /// }
    /// ```
    public func fetchEvents(
        taskID: String, in interval: DateInterval, timeZone: TimeZone? = nil, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[HealthKitTaskEvent], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) {
            try await self.fetchEvents(taskID: taskID, in: interval, timeZone: timeZone)
        }
    }

    /// The computed outcomes of a HealthKit-linked task; see the async `fetchOutcomes(for:in:timeZone:)`.
    public func fetchOutcomes(
        for taskID: String, in interval: DateInterval, timeZone: TimeZone? = nil, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[HealthKitOutcome], CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) {
            try await self.fetchOutcomes(for: taskID, in: interval, timeZone: timeZone)
        }
    }

    /// A task's progress over a day; see `dailyProgress(taskID:on:timeZone:)`.
    public func dailyProgress(
        taskID: String, on date: Date, timeZone: TimeZone? = nil, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<HealthKitTaskProgress, CloudantError>) -> Void
    ) {
        store.deliver(on: callbackQueue, to: completion) {
            try await self.dailyProgress(taskID: taskID, on: date, timeZone: timeZone)
        }
    }
}
