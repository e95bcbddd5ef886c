internal import CloudantCore
public import Foundation

/// Computes ``HealthStatistics`` from quantity samples, without a store: what
/// `DocumentStore.statistics(ofType:from:to:by:unit:timeZone:sourcePriority:)` runs on the
/// samples it reads.
///
/// ```swift
/// let week = try HealthStatisticsCalculator.statistics(
///     of: samples, typeIdentifier: "HKQuantityTypeIdentifierStepCount", in: DateInterval(start: s, end: e),
///     by: .day, timeZone: .gmt)
/// ```
///
/// Cumulative types (HealthKit's merge): sources are taken in priority order. A sample's value is spread
/// evenly over its duration; the parts of it that fall in a bucket and that no higher-priority source
/// covers (with a sample of its own) count, prorated. Samples of one source all count, overlapping or not.
/// An instantaneous sample counts whole unless a higher-priority sample covers its instant. So two devices
/// counting the same walk give that walk's steps once, from the higher one; where only the lower one
/// recorded, its steps fill in.
///
/// Discrete types: every sample starting in a bucket counts (minimum, arithmetic mean, maximum), from every
/// source, as HealthKit's discrete statistics do.
public enum HealthStatisticsCalculator {
    /// Most buckets one call makes (11 years of hours).
    public static let bucketLimit = 100_000

    /// The statistics of `samples` (of one type) over `interval`.
    /// - Parameters:
    ///   - samples: The samples of one type, in any order.
    ///   - typeIdentifier: Their quantity type.
    ///   - interval: The range the buckets cover.
    ///   - length: The bucket length.
    ///   - unit: the unit of the result; the unit most samples are in when `nil`.
    ///   - timeZone: The calendar the buckets follow.
    ///   - sourcePriority: Which source counts where several recorded the same time.
    /// - Throws: `CloudantError` `.incompatibleUnits` when a sample's unit cannot be converted to `unit`,
    ///   `.invalidInput` when `interval` would need more than ``bucketLimit`` buckets.
    public static func statistics(
        of samples: [QuantitySample], typeIdentifier: String, in interval: DateInterval, by length: HealthStatisticsInterval,
        unit: HealthUnit? = nil, timeZone: TimeZone = .gmt, sourcePriority: HealthSourcePriority = .default
    ) throws -> HealthStatistics {
        try statistics(
            of: StatisticsSamples(samples, typeIdentifier: typeIdentifier), typeIdentifier: typeIdentifier, in: interval,
            by: length, unit: unit, timeZone: timeZone, sourcePriority: sourcePriority)
    }

    /// The statistics of `table` (samples of `typeIdentifier`) over `interval`: what the public form runs once
    /// the samples are rows, and what the store runs on rows read from its quantity projection.
    static func statistics(
        of table: StatisticsSamples, typeIdentifier: String, in interval: DateInterval, by length: HealthStatisticsInterval,
        unit: HealthUnit?, timeZone: TimeZone, sourcePriority: HealthSourcePriority
    ) throws -> HealthStatistics {
        let aggregation = HealthAggregationStyle(typeIdentifier: typeIdentifier)
        let unitText = unit?.description ?? table.mostCommonUnit() ?? "count"
        let target = try unit ?? HealthUnit(parsing: unitText)
        let boundaries = try bucketBoundaries(interval, by: length, timeZone: timeZone)
        var accumulators = Array(repeating: Accumulator(), count: max(0, boundaries.count - 1))
        // Each unit's conversion, found once: nil where the unit is the result's own.
        let conversions = try table.units.map { text -> HealthUnit? in text == unitText ? nil : try HealthUnit(parsing: text) }

        // Sources in the order they count, each with the positions of its rows.
        var positions = Array(repeating: [Int](), count: table.sources.count)
        for (position, row) in table.rows.enumerated() { positions[Int(row.source)].append(position) }
        let sources = table.sources.indices.map { index in
            (rank: sourcePriority.rank(of: table.sources[index].source, device: table.sources[index].device),
             rows: positions[index])
        }.filter { !$0.rows.isEmpty }.sorted { $0.rank < $1.rank }
        let (start, end) = (interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970)
        let edges = boundaries.map(\.timeIntervalSince1970)
        var covered = CoveredTime()
        var counted: [String] = []
        var touched: [Int] = []  // the buckets the current sample counted in
        for (sourceIndex, source) in sources.enumerated() {
            var intervals: [(Double, Double)] = []
            var any = false
            for position in source.rows {
                let row = table.rows[position]
                let value = try conversions[Int(row.unit)].map { try $0.convert(row.value, to: target) } ?? row.value
                let (s, e) = (row.start, row.end)
                switch aggregation {
                case .discrete:
                    guard s >= start, s < end, let bucket = bucketIndex(of: s, in: edges) else { continue }
                    accumulators[bucket].add(discrete: value, source: source.rank.name, index: sourceIndex)
                    any = true
                case .cumulative:
                    if e <= s {
                        guard s >= start, s < end, !covered.contains(s), let bucket = bucketIndex(of: s, in: edges) else {
                            continue
                        }
                        accumulators[bucket].add(share: value, source: source.rank.name, index: sourceIndex)
                        accumulators[bucket].count += 1
                        any = true
                        continue
                    }
                    let (from, to) = (max(s, start), min(e, end))
                    guard to > from else { continue }
                    intervals.append((from, to))
                    touched.removeAll(keepingCapacity: true)
                    for piece in covered.uncovered(from, to) {
                        distribute(value, over: piece, of: e - s, edges: edges, into: &accumulators, source: source.rank.name,
                                   index: sourceIndex, touched: &touched)
                    }
                    for bucket in touched { accumulators[bucket].count += 1 }
                    any = any || !touched.isEmpty
                }
            }
            // A source's own samples never hide each other; they hide the sources after it.
            covered.add(intervals)
            if any { counted.append(source.rank.name) }
        }
        let order = Dictionary(uniqueKeysWithValues: counted.enumerated().map { ($1, $0) })
        let buckets = accumulators.indices.map { index in
            accumulators[index].bucket(
                start: boundaries[index], end: boundaries[index + 1], aggregation: aggregation, order: order)
        }
        return HealthStatistics(
            typeIdentifier: typeIdentifier, unit: unitText, aggregation: aggregation, interval: length,
            timeZone: timeZone.identifier, sources: counted, buckets: buckets)
    }

    /// Adds the share of `value` (spread over `duration`) that falls in each bucket `piece` overlaps, noting
    /// the buckets in `touched`.
    private static func distribute(
        _ value: Double, over piece: (Double, Double), of duration: Double, edges: [Double],
        into accumulators: inout [Accumulator], source: String, index sourceIndex: Int, touched: inout [Int]
    ) {
        guard var index = bucketIndex(of: piece.0, in: edges) else { return }
        while index < accumulators.count, edges[index] < piece.1 {
            let overlap = min(piece.1, edges[index + 1]) - max(piece.0, edges[index])
            if overlap > 0 {
                accumulators[index].add(share: value * overlap / duration, source: source, index: sourceIndex)
                // Pieces come in time order, so a bucket met again is the last one noted.
                if touched.last != index { touched.append(index) }
            }
            index += 1
        }
    }

    /// The bucket whose `[edge, next edge)` holds `time`.
    private static func bucketIndex(of time: Double, in edges: [Double]) -> Int? {
        guard edges.count > 1, time >= edges[0], time < edges[edges.count - 1] else { return nil }
        var low = 0
        var high = edges.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if edges[middle] <= time { low = middle } else { high = middle }
        }
        return low
    }

    /// The bucket edges: `interval`'s start, the calendar boundaries inside it, its end.
    static func bucketBoundaries(
        _ interval: DateInterval, by length: HealthStatisticsInterval, timeZone: TimeZone
    ) throws -> [Date] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        let component: Calendar.Component = switch length {
        case .hour: .hour
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        }
        guard interval.duration > 0 else { return [interval.start, interval.end] }
        var edges = [interval.start]
        var boundary = calendar.dateInterval(of: component, for: interval.start)?.start ?? interval.start
        while true {
            guard let next = calendar.date(byAdding: component, value: 1, to: boundary), next > boundary else { break }
            boundary = next
            if boundary >= interval.end { break }
            edges.append(boundary)
            if edges.count > bucketLimit {
                throw CloudantError(
                    .invalidInput, "That range needs more than \(bucketLimit) buckets; ask for a longer interval or a "
                        + "shorter range.", context: .init(field: "by"))
            }
        }
        edges.append(interval.end)
        return edges
    }

    /// One bucket's running figures.
    private struct Accumulator {
        var sum = 0.0
        var minimum = Double.infinity
        var maximum = -Double.infinity
        var count = 0
        var sources: Set<String> = []
        /// The position of the source added last: sources come one after the other, so each is hashed into
        /// `sources` once per bucket rather than once per sample.
        var lastSource = -1

        mutating func add(share: Double, source: String, index: Int) {
            sum += share
            note(source, index: index)
        }

        mutating func add(discrete value: Double, source: String, index: Int) {
            sum += value
            minimum = Swift.min(minimum, value)
            maximum = Swift.max(maximum, value)
            count += 1
            note(source, index: index)
        }

        private mutating func note(_ source: String, index: Int) {
            guard index != lastSource else { return }
            sources.insert(source)
            lastSource = index
        }

        func bucket(start: Date, end: Date, aggregation: HealthAggregationStyle, order: [String: Int]) -> HealthStatistics.Bucket {
            let names = sources.sorted { (order[$0] ?? 0) < (order[$1] ?? 0) }
            switch aggregation {
            case .cumulative:
                return .init(start: start, end: end, sum: sum, sampleCount: count, sources: names)
            case .discrete:
                guard count > 0 else { return .init(start: start, end: end) }
                return .init(
                    start: start, end: end, minimum: minimum, average: sum / Double(count), maximum: maximum,
                    sampleCount: count, sources: names)
            }
        }
    }
}

/// Disjoint time intervals, sorted: what higher-priority sources have covered so far.
struct CoveredTime {
    private var intervals: [(start: Double, end: Double)] = []

    /// Whether an instant lies inside a covered interval.
    func contains(_ time: Double) -> Bool {
        guard let index = firstEnding(after: time) else { return false }
        return intervals[index].start <= time
    }

    /// The parts of `[start, end)` no interval covers.
    func uncovered(_ start: Double, _ end: Double) -> [(Double, Double)] {
        var pieces: [(Double, Double)] = []
        var cursor = start
        var index = firstEnding(after: start) ?? intervals.count
        while index < intervals.count, intervals[index].start < end {
            if intervals[index].start > cursor { pieces.append((cursor, intervals[index].start)) }
            cursor = max(cursor, intervals[index].end)
            index += 1
        }
        if cursor < end { pieces.append((cursor, end)) }
        return pieces
    }

    /// Adds intervals, merging overlapping and touching ones.
    mutating func add(_ more: [(Double, Double)]) {
        guard !more.isEmpty else { return }
        let all = (intervals.map { ($0.start, $0.end) } + more).sorted { $0.0 < $1.0 }
        var merged: [(start: Double, end: Double)] = []
        for (start, end) in all {
            if let last = merged.last, start <= last.end {
                merged[merged.count - 1].end = max(last.end, end)
            } else {
                merged.append((start, end))
            }
        }
        intervals = merged
    }

    /// The index of the first interval ending after `time`.
    private func firstEnding(after time: Double) -> Int? {
        var low = 0
        var high = intervals.count
        while low < high {
            let middle = (low + high) / 2
            if intervals[middle].end <= time { low = middle + 1 } else { high = middle }
        }
        return low < intervals.count ? low : nil
    }
}
