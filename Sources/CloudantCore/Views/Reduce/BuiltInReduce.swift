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

    /// The function's name as a design document writes it (`_sum`, `_top_3`).
    public var name: String {
        switch self {
        case .sum: return "_sum"
        case .count: return "_count"
        case .stats: return "_stats"
        case .approximateCountDistinct: return "_approx_count_distinct"
        case .top(let rank): return "_top_\(rank)"
        case .bottom(let rank): return "_bottom_\(rank)"
        case .first: return "_first"
        case .last: return "_last"
        }
    }

    /// A new accumulator for one group of rows.
    ///
    /// A group reduces to the same value whichever way it is read: with `readingBackward` (rows and partials
    /// given in reverse index order, as a descending query reads them), `_top_N`, `_bottom_N` and `_first`
    /// keep, among values or rows that tie, the one earlier in the index, and `_last` the later one, as
    /// reading forward does. Ties are values that collate equal (`1` and `1.0`) and the rows of a document
    /// that emits one key twice. CouchDB's own choice between them depends on where its b-tree's nodes
    /// begin and end; one rule for both directions lets a descending query take stored partials too.
    public func accumulator(readingBackward: Bool = false) -> ReduceAccumulator {
        ReduceAccumulator(self, readingBackward: readingBackward)
    }
}
