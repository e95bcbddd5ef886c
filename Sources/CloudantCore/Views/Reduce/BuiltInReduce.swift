/// CouchDB's built-in reduce functions, which run without a JavaScript engine: `_sum`, `_count`, `_stats`,
/// `_approx_count_distinct`, and CouchDB 3.5's `_top_N`, `_bottom_N`, `_first` and `_last`.
///
/// A name matches by prefix, as CouchDB matches it (`_sum_all` is `_sum`), except the ranked ones, whose
/// suffix is their rank (1 to 100).
///
/// ```swift
/// var sum = BuiltInReduce("_sum")!.accumulator()
/// sum.add(key: "a", id: "d1", value: 2)
/// sum.add(key: "b", id: "d2", value: [1, 2])
/// sum.result()   // [3, 2]
/// ```
public enum BuiltInReduce: Sendable, Hashable {
    /// The sum of the values, numbers or arrays of numbers (`_sum`).
    case sum
    /// How many rows (`_count`).
    case count
    /// Sum, count, minimum, maximum and sum of squares of numeric values (`_stats`).
    case stats
    /// An estimate of how many distinct keys, by HyperLogLog (`_approx_count_distinct`).
    case approximateCountDistinct
    /// The `n` greatest values (`_top_N`).
    case top(Int)
    /// The `n` least values (`_bottom_N`).
    case bottom(Int)
    /// The value of the row with the least key and document id.
    case first
    /// The value of the row with the greatest key and document id.
    case last

    /// The built-in a reduce function's source names, or nil when the source is JavaScript (or an unknown
    /// built-in, which design document validation refuses).
    public init?(_ source: String) {
        guard source.hasPrefix("_") else { return nil }
        if source.hasPrefix("_sum") {
            self = .sum
        } else if source.hasPrefix("_count") {
            self = .count
        } else if source.hasPrefix("_stats") {
            self = .stats
        } else if source.hasPrefix("_approx_count_distinct") {
            self = .approximateCountDistinct
        } else if source.hasPrefix("_top_"), let rank = Int(source.dropFirst(5)), (1...100).contains(rank) {
            self = .top(rank)
        } else if source.hasPrefix("_bottom_"), let rank = Int(source.dropFirst(8)), (1...100).contains(rank) {
            self = .bottom(rank)
        } else if source.hasPrefix("_first") {
            self = .first
        } else if source.hasPrefix("_last") {
            self = .last
        } else {
            return nil
        }
    }

    /// A new accumulator for one group of rows.
    public func accumulator() -> ReduceAccumulator { ReduceAccumulator(self) }
}
