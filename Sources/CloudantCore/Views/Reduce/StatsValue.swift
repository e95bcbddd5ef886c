/// `_stats`'s running value (`couch_query_servers:builtin_stats`): sum, count, min, max and sum of squares of
/// numbers, element by element for arrays of numbers; a map value may also be an earlier `_stats` object.
indirect enum StatsValue: Sendable {
    case single(sum: JSONNumber, count: JSONNumber, min: JSONNumber, max: JSONNumber, sumsqr: JSONNumber)
    case elements([StatsValue])

    /// A value `_stats` cannot use: CouchDB fails the query with this reason.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Adds `value` to the stats so far (`build_initial_accumulator` for the first, `stat_values` after).
    static func add(_ value: JSONValue, to accumulated: StatsValue?) throws(Failure) -> StatsValue {
        guard let accumulated else { return try initial(value) }
        return try combine(value, accumulated)
    }

    private static func initial(_ value: JSONValue) throws(Failure) -> StatsValue {
        switch value {
        case .array(let elements):
            var result: [StatsValue] = []
            for element in elements { result.append(try initial(element)) }
            return .elements(result)
        case .number(let number):
            return one(number)
        case .object(let members):
            return try unpack(members)
        default:
            throw Failure(description: "non-numeric _stats input: \(ErlangTerm.format(value))")
        }
    }

    private static func combine(_ value: JSONValue, _ accumulated: StatsValue) throws(Failure) -> StatsValue {
        switch (value, accumulated) {
        case (.array(let elements), .elements(let stats)):
            guard elements.count == stats.count else { throw notNumbers(value) }
            var result: [StatsValue] = []
            for (element, stat) in zip(elements, stats) { result.append(try combine(element, stat)) }
            return .elements(result)
        case (.object(let members), _):
            return try merge(try unpack(members), accumulated)
        case (.number(let number), _):
            return try merge(one(number), accumulated)
        default:
            throw notNumbers(value)
        }
    }

    /// `stat_values` of two tuples; a tuple meeting an array's stats fails naming the tuple, as Erlang prints it
    /// (`'{3,1,3,3,9}'` for the number 3).
    private static func merge(_ a: StatsValue, _ b: StatsValue) throws(Failure) -> StatsValue {
        guard case .single(let sum0, let count0, let min0, let max0, let squares0) = a,
            case .single(let sum1, let count1, let min1, let max1, let squares1) = b
        else {
            guard case .single(let sum, let count, let min, let max, let squares) = a else {
                throw Failure(description: "The _stats function requires that map values be numbers or arrays of numbers")
            }
            let tuple = [sum, count, min, max, squares].map { ErlangTerm.format(.number($0)) }.joined(separator: ",")
            throw Failure(description: "The _stats function requires that map values be numbers or arrays of numbers, not '{\(tuple)}'")
        }
        return .single(
            sum: ErlangNumber.add(sum0, sum1), count: ErlangNumber.add(count0, count1), min: ErlangNumber.min(min0, min1),
            max: ErlangNumber.max(max0, max1), sumsqr: ErlangNumber.add(squares0, squares1))
    }

    private static func one(_ number: JSONNumber) -> StatsValue {
        .single(sum: number, count: .integer(1), min: number, max: number, sumsqr: ErlangNumber.multiply(number, number))
    }

    /// An object with `sum`, `count`, `min`, `max` and `sumsqr` (a `_stats` result used as a map value).
    private static func unpack(_ members: JSONObject) throws(Failure) -> StatsValue {
        func number(_ name: String) throws(Failure) -> JSONNumber {
            switch members[name] {
            case .number(let number)?: return number
            case nil:
                throw Failure(description: "user _stats input missing required field \(name) (\(ErlangTerm.format(.object(members))))")
            case let other?:
                throw Failure(description: "non-numeric _stats input received for \(name): \(ErlangTerm.format(other))")
            }
        }
        return .single(
            sum: try number("sum"), count: try number("count"), min: try number("min"), max: try number("max"),
            sumsqr: try number("sumsqr"))
    }

    private static func notNumbers(_ value: JSONValue) -> Failure {
        Failure(description: "The _stats function requires that map values be numbers or arrays of numbers, not '\(ErlangTerm.format(value))'")
    }

    /// The finished value: `{"sum","count","min","max","sumsqr"}`, or an array of them.
    var packed: JSONValue {
        switch self {
        case .single(let sum, let count, let min, let max, let sumsqr):
            return ["sum": .number(sum), "count": .number(count), "min": .number(min), "max": .number(max), "sumsqr": .number(sumsqr)]
        case .elements(let stats):
            return .array(stats.map(\.packed))
        }
    }
}
