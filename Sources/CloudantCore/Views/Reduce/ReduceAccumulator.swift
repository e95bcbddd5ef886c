/// A built-in reduce over one group of rows, fed a row at a time: what CouchDB computes over a view
/// b-tree's nodes and then rereduces, in one pass (every built-in is associative, so the result is the same).
///
/// The accumulated form is CouchDB's intermediate reduction; ``result()`` finalises it as CouchDB's
/// coordinator does (`_stats` packed into its object, `_approx_count_distinct` estimated, `_first` and
/// `_last` reduced to their value).
public struct ReduceAccumulator: Sendable {
    /// The built-in reduce it computes.
    public let function: BuiltInReduce
    /// Whether rows and partials arrive in reverse index order (a descending query): then a row that ties
    /// with one already kept comes before it in the index, and takes its place where the function keeps the
    /// first (see ``BuiltInReduce/accumulator(readingBackward:)``).
    public let readsBackward: Bool
    private var state: State

    private enum State: Sendable {
        case count(Int)
        case sum(SumState)
        case stats(StatsValue?)
        case distinct(HyperLogLog)
        case ranked([JSONValue])
        case edge(EdgeRow?)
        case failed(String)
    }

    private struct EdgeRow: Sendable {
        var key: JSONValue
        var id: String
        var value: JSONValue
    }

    private enum SumState: Sendable {
        case running(JSONValue)
        case error(JSONValue)
    }

    init(_ function: BuiltInReduce, readingBackward: Bool = false) {
        self.function = function
        self.readsBackward = readingBackward
        switch function {
        case .count: state = .count(0)
        case .sum: state = .sum(.running(.number(.integer(0))))
        case .stats: state = .stats(nil)
        case .approximateCountDistinct: state = .distinct(HyperLogLog())
        case .top, .bottom: state = .ranked([])
        case .first, .last: state = .edge(nil)
        }
    }

    /// Adds `count` rows whose values do not matter (`_count` only).
    public mutating func addRows(_ count: Int) {
        if case .count(let total) = state { state = .count(total + count) }
    }

    /// Whether the function reads values (every built-in but `_count`).
    public var readsValues: Bool { function != .count }

    /// Adds one row of `_sum` whose value is the JSON text `value`, without parsing it, when that text is a
    /// whole number in 64 bits and the sum so far is one and does not overflow: what `_sum` meets most, and
    /// where parsing each value cost more than reading its row. Returns false, having added nothing, for any
    /// other value or state; the caller then parses the value and calls ``add(key:id:value:)``, which adds
    /// exactly as CouchDB does (a bignum past 64 bits, a float with a fraction or `-0`).
    public mutating func addWholeNumberText(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard case .sum(.running(.number(.integer(let total)))) = state, let number = Self.wholeNumber(value) else { return false }
        let (sum, overflow) = total.addingReportingOverflow(number)
        guard !overflow else { return false }
        state = .sum(.running(.number(.integer(sum))))
        return true
    }

    /// The text as a whole number when it is one JSON reads as a 64-bit integer: an optional `-`, then `0`
    /// or up to 18 digits without a leading zero (so it cannot overflow), nothing else. `-0` is not one (it
    /// reads as the float `-0.0`).
    public static func wholeNumber(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = text.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        let digits = negative ? text.count - 1 : text.count
        guard digits >= 1, digits <= 18 else { return nil }
        let start = negative ? 1 : 0
        let zero = UInt8(ascii: "0")
        if text[start] == zero { return digits == 1 && !negative ? 0 : nil }
        var magnitude: Int64 = 0
        for index in start..<text.count {
            let digit = text[index] &- zero
            guard digit <= 9 else { return nil }
            magnitude = magnitude &* 10 &+ Int64(digit)
        }
        return negative ? -magnitude : magnitude
    }

    /// Adds one row.
    public mutating func add(key: JSONValue, id: String, value: JSONValue) {
        switch state {
        case .count(let total):
            state = .count(total + 1)
        case .sum(.running(let total)):
            do {
                state = .sum(.running(try SumArithmetic.add(value, to: total)))
            } catch {
                state = .sum(.error(error.reduction))
            }
        case .sum(.error):
            break
        case .stats(let accumulated):
            do {
                state = .stats(try StatsValue.add(value, to: accumulated))
            } catch {
                state = .failed(error.description)
            }
        case .distinct(var sketch):
            sketch.insert(ErlangTerm.externalFormat(of: key))
            state = .distinct(sketch)
        case .ranked(let values):
            let descending: Bool
            let limit: Int
            switch function {
            case .top(let rank): (descending, limit) = (true, rank)
            case .bottom(let rank): (descending, limit) = (false, rank)
            default: return
            }
            state = .ranked(
                Self.merge(value, into: values, descending: descending, limit: limit, replacingEqual: readsBackward))
        case .edge(let current):
            guard let current else {
                state = .edge(EdgeRow(key: key, id: id, value: value))
                return
            }
            var order = Collation.compare(key, current.key)
            if order == 0 { order = Collation.compareBytes(id, current.id) }
            // `_first` keeps the lowest (key, id), `_last` the highest; between rows that tie (a document that
            // emits one key twice), the one earlier in the index for `_first`, the later one for `_last`.
            let replaces =
                switch (function == .first, readsBackward) {
                case (true, false): order < 0
                case (true, true): order <= 0
                case (false, false): order >= 0
                case (false, true): order > 0
                }
            if replaces { state = .edge(EdgeRow(key: key, id: id, value: value)) }
        case .failed:
            break
        }
    }

    /// The reduction so far as a partial that ``addPartial(_:)`` takes back, the forms CouchDB keeps in its
    /// b-tree's inner nodes and rereduces: `_count`'s count, `_sum`'s sum, `_stats`'s object, the ranked
    /// values of `_top_N` and `_bottom_N`, `[key, id, value]` of the row `_first` or `_last` keeps, and
    /// `_approx_count_distinct`'s sketch as a string (the registers it set). Nil before `_first` or `_last`
    /// met a row, and once the rows met a value the function refuses: rows whose reduction fails are reduced
    /// again one by one, so the error reads as it would.
    public var partial: JSONValue? {
        switch state {
        case .count(let total): return .number(JSONNumber(total))
        case .sum(.running(let total)): return total
        case .stats(let accumulated?): return accumulated.packed
        case .distinct(let sketch): return .string(sketch.packed)
        case .ranked(let values): return .array(values)
        case .edge(let row?): return [row.key, .string(row.id), row.value]
        default: return nil
        }
    }

    /// Adds the reduction of other rows, a ``partial`` of the same function: the result is that of adding
    /// those rows one by one, up to the rounding of floating-point sums, which CouchDB's own rereduce shares.
    ///
    /// `_top_N`, `_bottom_N`, `_first` and `_last` keep, among rows that tie, the one earlier in the index
    /// (the last for `_last`), as CouchDB's rereduce keeps its first node's (`lists:umerge`,
    /// `less_json_ids`): partials are added in the order the accumulator reads, forward or backward
    /// (``readsBackward``), each the reduction of a run of rows read forward. A partial not of this
    /// function's form is ignored.
    public mutating func addPartial(_ partial: JSONValue) {
        switch (state, partial) {
        case (.count(let total), .number(.integer(let count))):
            state = .count(total + Int(count))
        case (.distinct(var sketch), .string(let packed)):
            guard let other = HyperLogLog(packed: packed) else { return }
            sketch.formUnion(other)
            state = .distinct(sketch)
        case (.ranked, .array(let values)):
            // Each value merged as a row's would be: a value equal to one already kept is dropped.
            for value in values { add(key: .null, id: "", value: value) }
        case (.edge, .array(let row)) where row.count == 3:
            guard case .string(let id) = row[1] else { return }
            add(key: row[0], id: id, value: row[2])
        case (.sum, _), (.stats, _):
            // A `_sum` or `_stats` partial is added as CouchDB rereduces: as one more value.
            add(key: .null, id: "", value: partial)
        default:
            break
        }
    }

    /// The finished reduction, as CouchDB answers it.
    ///
    /// - Throws: `CloudantError` `.invalidInput` when `_stats` met a value it cannot use (CouchDB fails the
    ///   query then).
    public func result() throws -> JSONValue {
        switch state {
        case .count(let total): return .number(JSONNumber(total))
        case .sum(.running(let total)): return total
        case .sum(.error(let error)): return error
        case .stats(let accumulated): return accumulated?.packed ?? .array([])
        case .distinct(let sketch): return .number(JSONNumber(sketch.cardinality))
        case .ranked(let values): return .array(values)
        case .edge(let current): return current?.value ?? .array([])
        case .failed(let reason): throw CloudantError(.invalidInput, reason)
        }
    }

    /// `lists:umerge` with CouchDB's rank function: sorted, collation-equal values kept once (the one already
    /// there, or the new one when `replacingEqual`), at most `limit`.
    private static func merge(
        _ value: JSONValue, into values: [JSONValue], descending: Bool, limit: Int, replacingEqual: Bool
    ) -> [JSONValue] {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            let order = Collation.compare(values[middle], value)
            if order == 0 {
                guard replacingEqual else { return values }
                var replaced = values
                replaced[middle] = value
                return replaced
            }
            if descending ? order > 0 : order < 0 { low = middle + 1 } else { high = middle }
        }
        guard low < limit else { return values }
        var merged = values
        merged.insert(value, at: low)
        if merged.count > limit { merged.removeLast() }
        return merged
    }
}
