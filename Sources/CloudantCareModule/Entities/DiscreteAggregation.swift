/// How the samples of a discrete HealthKit quantity inside one event become a single outcome value
/// (``HealthKitLinkage/aggregation``). CareKit has no such option: it always records one value per sample,
/// which is what a linkage without an aggregation does here too.
///
/// ```swift
/// let weight = HealthKitLinkage(quantityIdentifier: "HKQuantityTypeIdentifierBodyMass", quantityType: .discrete,
///                               unitString: "kg", aggregation: .latest)
/// ```
public enum DiscreteAggregation: String, Codable, Hashable, Sendable, CaseIterable {
    /// The value of the sample that starts last (ties: the one that ends last, then the larger uuid).
    case latest
    /// The smallest value.
    case minimum
    /// The largest value.
    case maximum
    /// The arithmetic mean of the values (each sample counts once, whatever its duration).
    case average
}
