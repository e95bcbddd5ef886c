public import Foundation

/// Statistics of one quantity type over calendar intervals (HealthKit's `HKStatisticsCollection`): sums for
/// cumulative types, minimum, average and maximum for discrete ones, with overlapping sources merged by a
/// ``HealthSourcePriority``. Made by `DocumentStore.statistics(ofType:from:to:by:unit:timeZone:sourcePriority:)`.
///
/// ```swift
/// let steps = try await store.statistics(
///     ofType: "HKQuantityTypeIdentifierStepCount", from: monday, to: nextMonday, by: .day,
///     timeZone: TimeZone(identifier: "Europe/Paris")!)
/// for day in steps.buckets { print(day.start, day.sum ?? 0, day.sources) }
/// ```
public struct HealthStatistics: Codable, Hashable, Sendable {
    /// The quantity type.
    public var typeIdentifier: String
    /// The unit every value is in.
    public var unit: String
    /// Sums or minimum/average/maximum.
    public var aggregation: HealthAggregationStyle
    /// The length of each bucket.
    public var interval: HealthStatisticsInterval
    /// The time zone the buckets follow (its identifier).
    public var timeZone: String
    /// The sources that had samples in range, in the order they counted (highest first).
    public var sources: [String]
    /// One bucket per interval from the start to the end asked for, empty ones included; the first and the
    /// last are cut at the start and the end.
    public var buckets: [Bucket]

    /// The statistics of one interval.
    public struct Bucket: Codable, Hashable, Sendable {
        /// Where the interval starts.
        public var start: Date
        /// Where it ends (excluded).
        public var end: Date
        /// For cumulative types: the total, each sample prorated over the part of its duration in the
        /// interval and not covered by a higher-priority source. `nil` for discrete types.
        public var sum: Double?
        /// For discrete types: the smallest value of the samples starting in the interval.
        public var minimum: Double?
        /// For discrete types: their arithmetic mean.
        public var average: Double?
        /// For discrete types: the largest.
        public var maximum: Double?
        /// Samples that counted in the interval (a cumulative sample wholly covered by a higher-priority
        /// source does not count).
        public var sampleCount: Int
        /// The sources that counted in the interval, in priority order.
        public var sources: [String]

        /// Creates a bucket.
        public init(
            start: Date, end: Date, sum: Double? = nil, minimum: Double? = nil, average: Double? = nil,
            maximum: Double? = nil, sampleCount: Int = 0, sources: [String] = []
        ) {
            self.start = start
            self.end = end
            self.sum = sum
            self.minimum = minimum
            self.average = average
            self.maximum = maximum
            self.sampleCount = sampleCount
            self.sources = sources
        }
    }

    /// Creates statistics (to chart figures computed elsewhere, say); the store's
    /// `DocumentStore.statistics(ofType:from:to:by:unit:timeZone:sourcePriority:)` makes them
    /// from samples.
    public init(
        typeIdentifier: String, unit: String, aggregation: HealthAggregationStyle, interval: HealthStatisticsInterval,
        timeZone: String = "GMT", sources: [String] = [], buckets: [Bucket]
    ) {
        self.typeIdentifier = typeIdentifier
        self.unit = unit
        self.aggregation = aggregation
        self.interval = interval
        self.timeZone = timeZone
        self.sources = sources
        self.buckets = buckets
    }

    /// For cumulative types, the sum over every bucket; `nil` for discrete types.
    public var total: Double? {
        aggregation == .cumulative ? buckets.reduce(0) { $0 + ($1.sum ?? 0) } : nil
    }
}

/// The length of a statistics bucket, on the calendar of the time zone asked for (a day is 23 or 25 hours
/// on a daylight-saving change; weeks start on Monday, as ISO 8601 has them).
public enum HealthStatisticsInterval: String, Codable, Hashable, Sendable, CaseIterable {
    /// One hour.
    case hour
    /// One calendar day.
    case day
    /// One week, Monday to Monday.
    case week
    /// One calendar month.
    case month
}

/// How a quantity type's samples add up (HealthKit's `HKQuantityAggregationStyle`).
public enum HealthAggregationStyle: String, Codable, Hashable, Sendable {
    /// Values add up over time (steps, distance, energy, nutrients): statistics are sums.
    case cumulative
    /// Each value stands alone (heart rate, weight, blood glucose): statistics are minimum, average, maximum.
    case discrete

    /// HealthKit's style for `typeIdentifier`: cumulative for the types HealthKit sums (every dietary type,
    /// steps, distances, energy, exercise, stand and move time, flights, strokes, pushes, falls, inhaler uses,
    /// insulin, alcoholic drinks, time in daylight), discrete for every other.
    public init(typeIdentifier: String) {
        let name = typeIdentifier.hasPrefix("HKQuantityTypeIdentifier")
            ? String(typeIdentifier.dropFirst("HKQuantityTypeIdentifier".count)) : typeIdentifier
        self = name.hasPrefix("Dietary") || name.hasPrefix("Distance") || Self.cumulativeNames.contains(name)
            ? .cumulative : .discrete
    }

    private static let cumulativeNames: Set<String> = [
        "ActiveEnergyBurned", "BasalEnergyBurned", "StepCount", "FlightsClimbed", "AppleExerciseTime", "AppleMoveTime",
        "AppleStandTime", "NikeFuel", "PushCount", "SwimmingStrokeCount", "NumberOfTimesFallen", "InhalerUsage",
        "InsulinDelivery", "NumberOfAlcoholicBeverages", "TimeInDaylight",
    ]
}
