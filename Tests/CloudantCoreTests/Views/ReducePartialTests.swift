@testable import CloudantCore
import CloudantTestSupport
import Testing

/// A run of rows' partial (`ReduceAccumulator.partial`), added to a reduction with `addPartial`, stands for the
/// run's rows: what a store's stored reduction blocks rely on, as CouchDB relies on its b-tree nodes'.
@Suite("Partial reductions of built-in reduce functions")
struct ReducePartialTests {
    static let functions: [BuiltInReduce] = [.count, .sum, .stats, .approximateCountDistinct, .top(3), .bottom(4), .first, .last]

    /// Rows in key order with many ties: keys from a few dozen, a document emitting one key more than once,
    /// values that collate equal but are written differently (`7` and `7.0`), each emit's value told apart
    /// for `_first` and `_last` (`[n, emit]`).
    static func rows(_ count: Int, for function: BuiltInReduce, using random: inout SplitMix64) -> [(JSONValue, String, JSONValue)] {
        var rows: [(key: Int, id: String, value: JSONValue)] = []
        for emit in 0..<count {
            let n = Int.random(in: -20...20, using: &random)
            let value: JSONValue
            switch function {
            case .first, .last: value = [.number(JSONNumber(n)), .number(JSONNumber(emit))]
            default: value = Bool.random(using: &random) ? .number(.integer(Int64(n))) : .number(.double(Double(n)))
            }
            rows.append((Int.random(in: 0..<30, using: &random), "d\(Int.random(in: 0..<8, using: &random))", value))
        }
        // Sorted by key and id as a view keeps them; a document's rows with one key stay in emit order.
        let sorted = rows.enumerated().sorted { ($0.element.key, $0.element.id, $0.offset) < ($1.element.key, $1.element.id, $1.offset) }
        return sorted.map { (.number(JSONNumber($0.element.key)), $0.element.id, $0.element.value) }
    }

    @Test(arguments: functions)
    func partialsOfRunsAddedInOrderGiveTheReductionOfTheirRows(_ function: BuiltInReduce) throws {
        var random = SplitMix64.fromEnvironmentOrRandom()
        for _ in 0..<50 {
            let rows = Self.rows(Int.random(in: 1...300, using: &random), for: function, using: &random)
            var whole = function.accumulator()
            for (key, id, value) in rows { whole.add(key: key, id: id, value: value) }

            // Rows cut into runs at random; some runs are added row by row, the others as their partial, as a
            // query takes whole blocks and reads rows at their edges.
            var combined = function.accumulator()
            var start = 0
            while start < rows.count {
                let end = min(rows.count, start + Int.random(in: 1...40, using: &random))
                if Bool.random(using: &random) {
                    for (key, id, value) in rows[start..<end] { combined.add(key: key, id: id, value: value) }
                } else {
                    var run = function.accumulator()
                    for (key, id, value) in rows[start..<end] { run.add(key: key, id: id, value: value) }
                    let partial = try #require(run.partial, "\(function)")
                    // Stored as JSON text and read back, as a block keeps it.
                    combined.addPartial(try JSONValue(parsing: partial.jsonString()))
                }
                start = end
            }
            #expect(try combined.result() == whole.result(), "\(function) (CLOUDANT_TEST_SEED=\(random.seed))")
        }
    }

    @Test func aSketchPackedAndReadBackKeepsEveryRegister() throws {
        var random = SplitMix64(seed: 7)
        for count in [0, 1, 40, 3000] {
            var sketch = HyperLogLog()
            for _ in 0..<count { sketch.insert((0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }) }
            let read = try #require(HyperLogLog(packed: sketch.packed))
            #expect(read.packed == sketch.packed)
            #expect(read.cardinality == sketch.cardinality)
        }
        #expect(HyperLogLog(packed: "0001") == nil, "not whole registers")
        #expect(HyperLogLog(packed: "80001") == nil, "an index past the last register")
        #expect(HyperLogLog(packed: "0003g") == nil, "not hexadecimal")
        #expect(HyperLogLog(packed: "00040") == nil, "a run longer than 53 zeros can make")
    }

    @Test func aPartialOfAnotherFormIsIgnored() throws {
        var top = BuiltInReduce.top(2).accumulator()
        top.add(key: 1, id: "a", value: 5)
        top.addPartial("not a list")
        #expect(try top.result() == [5])
        var distinct = BuiltInReduce.approximateCountDistinct.accumulator()
        distinct.add(key: 1, id: "a", value: .null)
        distinct.addPartial("zz")
        #expect(try distinct.result() == 1)
    }
}
