/// A built-in reduce over one group of rows, fed a row at a time: what CouchDB computes over a view
/// b-tree's nodes and then rereduces, in one pass (every built-in is associative, so the result is the same).
///
/// The accumulated form is CouchDB's intermediate reduction; ``result()`` finalises it as CouchDB's
/// coordinator does (`_stats` packed into its object, `_approx_count_distinct` estimated, `_first` and
/// `_last` reduced to their value).
public struct ReduceAccumulator: Sendable {
    /// The built-in reduce it computes.
    public let function: BuiltInReduce
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

    init(_ function: BuiltInReduce) {
        self.function = function
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
            state = .ranked(Self.merge(value, into: values, descending: descending, limit: limit))
        case .edge(let current):
            guard let current else {
                state = .edge(EdgeRow(key: key, id: id, value: value))
                return
            }
            let order = Collation.compare(key, current.key)
            let rowFirst = order < 0 || (order == 0 && Collation.compareBytes(id, current.id) < 0)
            if function == .first ? rowFirst : !rowFirst { state = .edge(EdgeRow(key: key, id: id, value: value)) }
        case .failed:
            break
        }
    }

    /// The finished reduction, as CouchDB answers it.
    ///
    /// - Throws: `CloudantError` `.invalidValue` when `_stats` met a value it cannot use (CouchDB fails the
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
        case .failed(let reason): throw CloudantError(.invalidValue, reason)
        }
    }

    /// `lists:umerge` with CouchDB's rank function: sorted, collation-equal values kept once (the one already
    /// there), at most `limit`.
    private static func merge(_ value: JSONValue, into values: [JSONValue], descending: Bool, limit: Int) -> [JSONValue] {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            let order = Collation.compare(values[middle], value)
            if order == 0 { return values }
            if descending ? order > 0 : order < 0 { low = middle + 1 } else { high = middle }
        }
        guard low < limit else { return values }
        var merged = values
        merged.insert(value, at: low)
        if merged.count > limit { merged.removeLast() }
        return merged
    }
}
