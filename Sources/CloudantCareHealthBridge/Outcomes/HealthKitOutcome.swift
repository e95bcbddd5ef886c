public import CloudantCareModule
public import Foundation

/// The outcome of one event of a `HealthKitLinkedTask`, computed from the stored quantity
/// samples (CareKit's `OCKHealthKitOutcome`). It is never stored: every read computes it again from the
/// samples, so adding, changing or deleting a sample shows at the next read.
///
/// ``values`` and ``sampleUUIDs`` are parallel, as CareKit's `values` and `healthKitUUIDs`: a cumulative
/// quantity has one value (the sum) with every sample that contributed to it; a discrete quantity has one value
/// per sample, or one aggregated value with the samples it was computed from.
///
/// ```swift
/// let outcome = try await careHealth.fetchOutcomes(for: "steps", in: today)[0]
/// outcome.values[0].numericValue    // 8_412
/// outcome.sampleUUIDs[0]            // ["6F1B…", "0C44…", …]
/// ```
public struct HealthKitOutcome: Hashable, Sendable {
    /// The task version whose event this is.
    public var taskUUID: UUID
    /// The event's occurrence index in that task version's schedule.
    public var taskOccurrenceIndex: Int
    /// The computed values, each a `.double` in the linkage's unit (`OutcomeValue.units`
    /// is the linkage's unit string; `OutcomeValue.createdDate` is when it was computed).
    public var values: [OutcomeValue]
    /// For each value, the uuids of the samples it was computed from (the store's sample uuids, as HealthKit's).
    public var sampleUUIDs: [[String]]

    /// Creates an outcome.
    public init(taskUUID: UUID, taskOccurrenceIndex: Int, values: [OutcomeValue], sampleUUIDs: [[String]]) {
        self.taskUUID = taskUUID
        self.taskOccurrenceIndex = taskOccurrenceIndex
        self.values = values
        self.sampleUUIDs = sampleUUIDs
    }

    /// The sum of the numeric values (what CareKit's default progress strategy adds up).
    public var total: Double { values.compactMap(\.numericValue).reduce(0, +) }
}
