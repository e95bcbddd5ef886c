internal import Foundation

/// The time already counted for higher-priority sources within one event window, so a lower source adds only
/// what no higher one covers (HealthKit's merge of overlapping sources; the same rule as the health module's
/// statistics, applied to event windows rather than calendar buckets).
struct SourceCoverage {
    /// Disjoint, sorted covered intervals.
    private var intervals: [(start: Date, end: Date)] = []

    /// Whether `instant` lies in a covered interval.
    func covers(_ instant: Date) -> Bool {
        intervals.contains { $0.start <= instant && instant < $0.end }
    }

    /// How long `[start, end)` is not covered.
    func uncoveredLength(from start: Date, to end: Date) -> TimeInterval {
        var length = end.timeIntervalSince(start)
        for interval in intervals where interval.start < end && interval.end > start {
            length -= min(interval.end, end).timeIntervalSince(max(interval.start, start))
        }
        return max(0, length)
    }

    /// Adds a source's intervals (they never hide each other, only the sources after them).
    mutating func add(_ more: [(start: Date, end: Date)]) {
        var merged: [(start: Date, end: Date)] = []
        for interval in (intervals + more).sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, interval.start <= last.end {
                merged[merged.count - 1].end = max(last.end, interval.end)
            } else {
                merged.append(interval)
            }
        }
        intervals = merged
    }
}
