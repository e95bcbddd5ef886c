public import CloudantCareModule
public import CloudantStore
public import Foundation

/// HealthKit-linked tasks over the samples in the same store: their events with outcomes computed from the
/// stored quantity samples, as CareKit's `OCKHealthKitPassthroughStore` reads them from HealthKit.
///
/// ```swift
/// import CloudantCareHealth
/// let documents = try DocumentStore.open(name: "me", options: StoreOptions(registry: try .careHealth()))
/// let careHealth = CareHealthStore(care: CareStore(store: documents, timeZone: paris))
/// let today = try await careHealth.fetchEvents(taskID: "steps", in: DateInterval(start: midnight, duration: 86_400))
/// let done = try await careHealth.dailyProgress(taskID: "steps", on: Date())
/// ```
///
/// Nothing is cached: every read computes the outcomes from the samples stored at that moment, so a sample
/// added, changed or deleted (by the API, `health import` or replication) shows at the next read, and
/// ``liveEvents(taskID:in:timeZone:)`` emits again when the store changes.
public struct CareHealthStore: Sendable {
    /// The care store holding the HealthKit-linked tasks (its document store holds the samples too).
    public let care: CareStore
    let now: @Sendable () -> Date

    /// The document store holding the tasks and the samples.
    public var store: DocumentStore { care.store }

    /// Wraps a care store whose document store was opened with the care and health kinds
    /// (`EntityRegistry.careHealth(adding:)`).
    ///
    /// - Parameters:
    ///   - care: The care store.
    ///   - now: Stamps the computed values' `createdDate`; the live default is the system clock.
    public init(care: CareStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.care = care
        self.now = now
    }
}
