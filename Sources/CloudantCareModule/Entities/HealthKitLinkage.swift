/// How a task's outcomes come from HealthKit (CareKit's `OCKHealthKitLinkage`). The bridge module acts on it;
/// here it is only data.
///
/// JSON: `{"quantityIdentifier":"HKQuantityTypeIdentifierStepCount","quantityType":"cumulative",
/// "unitString":"count"}`.
public struct HealthKitLinkage: Codable, Hashable, Sendable {
    /// Whether HealthKit sums a quantity over time or reads single samples.
    public enum QuantityType: String, Codable, Hashable, Sendable, CaseIterable {
        /// Summed over a period (steps, energy burned).
        case cumulative
        /// Sampled at a point in time (heart rate, weight).
        case discrete
    }

    /// The HealthKit quantity type identifier (`HKQuantityTypeIdentifierStepCount`).
    public var quantityIdentifier: String
    /// How the quantity is read.
    public var quantityType: QuantityType
    /// The HealthKit unit string (`"count"`, `"count/min"`, `"kg"`).
    public var unitString: String
    /// For a discrete quantity, one value per event instead of CareKit's one value per sample; `nil` (the
    /// default, and what CareKit's JSON has) keeps one value per sample. Written as `"aggregation"` only when set.
    public var aggregation: DiscreteAggregation?

    /// Creates a linkage.
    ///
    /// - Parameters:
    ///   - quantityIdentifier: The HealthKit quantity type identifier (`HKQuantityTypeIdentifierStepCount`).
    ///   - quantityType: Whether the quantity is cumulative (summed) or discrete (one value per sample).
    ///   - unitString: The HealthKit unit string values are given in (`"count"`, `"count/min"`).
    ///   - aggregation: For a discrete quantity, how an event's samples become one value; `nil` keeps
    ///     one value per sample, as CareKit does.
    public init(
        quantityIdentifier: String, quantityType: QuantityType, unitString: String,
        aggregation: DiscreteAggregation? = nil
    ) {
        self.quantityIdentifier = quantityIdentifier
        self.quantityType = quantityType
        self.unitString = unitString
        self.aggregation = aggregation
    }
}
